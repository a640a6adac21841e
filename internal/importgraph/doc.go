// Package importgraph holds no code: its test asserts the SDK's import
// graph (issue 14): spec imports nothing from the module but the leaf
// internal/limitio, outboxtest pulls in neither provisioning nor
// confluent-kafka-go, and the non-Kafka SDK packages build with
// CGO_ENABLED=0. Issue 30: provisioning and cleanup do not depend on the
// writer (outbox) and the Connect and Schema Registry clients not on spec;
// the small helpers they need live in the leaves internal/uuidv7 and
// internal/limitio.
package importgraph
