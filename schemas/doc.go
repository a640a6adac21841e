// Package schemas holds the Avro side of outboxctl: versioned event types,
// the subject naming strategy, a structural Avro schema parser, the
// compatibility checker with Avro Java's and Confluent's semantics, and the
// writer-to-reader schema resolution used by the consumer SDK.
package schemas
