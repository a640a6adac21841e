// Package consumer is the Go SDK that downstream services import to consume
// events routed by the Debezium Outbox EventRouter: it decodes routed records,
// resolves the writer schema to the reader's, and dispatches to typed handlers
// per event type and version, with a durable inbox, retries and a DLQ.
package consumer
