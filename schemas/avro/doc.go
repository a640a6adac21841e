// Package avro is a structural Avro schema parser with Avro Java 1.12's
// accept/reject rules, and the schema model the compatibility checker
// (package compat) and the resolution engine work on.
//
// Start with Parse (or ParseFile, ParseWithNamed) and the Schema interface.
// A parsed schema is one of *Primitive, *Record, *Enum, *Fixed, *Array, *Map
// and *Union. Named types are shared by pointer: a reference to a named type
// is the definition itself, so recursive types are cycles in the graph and
// the compatibility checker can memoize by pointer identity as Java does by
// object identity.
//
// Defaults are kept as Avro JSON values (Field.Default): encoding/json
// values decoded with UseNumber (nil, bool, json.Number, string, []any,
// map[string]any). Bytes and fixed defaults are ISO-8859-1 strings (code
// point n is byte n). A resolver turns them into native values itself.
//
// What Parse accepts and rejects follows Avro Java 1.12.1's Schema.Parser as
// Confluent Schema Registry configures it for a new schema: the strict name
// validator (ASCII letters, digits, '_'; no leading digit) and default
// validation. Options select the lenient mode Confluent uses for schemas it
// already stores (no name validation, no default validation), and Avro
// 1.11's rule that a union default must match the first branch.
//
// CanonicalForm and Fingerprint64 implement the Avro specification's
// Parsing Canonical Form and CRC-64-AVRO (Rabin) fingerprint; unlike
// goavro's they drop logical types and honour the empty namespace.
//
// Known deviation: with NoNameValidation, Java reads a non-string enum
// symbol as null; this package keeps it as "" (Lenient rejects it anyway,
// as Confluent's name check does).
//
// The parity is checked against the real Avro 1.12.1 jar: see
// schemas/compat/testdata/java.
//
// The package does not decode whole data: goavro does that. It reads and
// writes the binary varints with Avro Java's rules (ReadInt, ReadLong,
// AppendInt, AppendLong), and NormalizeBinary rejects the over-long varints
// Java rejects and canonicalizes a datum before a lenient decoder reads it.
package avro
