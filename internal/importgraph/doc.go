// Package importgraph holds no code: its test asserts the SDK's import
// graph (issue 14): spec imports nothing from the module, outboxtest pulls
// in neither provisioning nor confluent-kafka-go, and the non-Kafka SDK
// packages build with CGO_ENABLED=0.
package importgraph
