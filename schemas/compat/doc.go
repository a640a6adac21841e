// Package compat answers "can this schema read that one?" the way Avro Java
// 1.12's SchemaCompatibility does, and "may this schema be registered?" the
// way Confluent Schema Registry's CompatibilityChecker does.
//
// Check(reader, writer) is a port of checkReaderWriterCompatibility: every
// incompatibility is collected with Java's type (TYPE_MISMATCH,
// NAME_MISMATCH, FIXED_SIZE_MISMATCH, MISSING_ENUM_SYMBOLS,
// READER_FIELD_MISSING_DEFAULT_VALUE, MISSING_UNION_BRANCH), its location
// (a JSON-pointer-like path such as /fields/0/type) and Java's message, in
// Java's order, including Java's quirks (memoized results reuse the location
// of their first visit; the reason a union branch fits nowhere is dropped; a
// new enum field with only an enum-level default is a TYPE_MISMATCH against
// the record).
//
// CheckLevel(level, candidate, history) applies a Confluent level to a
// subject's history (oldest first): BACKWARD, FORWARD and FULL check the
// latest version, the *_TRANSITIVE levels every version newest first,
// stopping at the first that fails, and NONE nothing.
//
// Findings are values, not errors. Each keeps Java's message; Confluent's
// verbose rendering ({errorType:'…', description:'…', additionalInfo:'…'})
// is available with Finding.Confluent and Report.ConfluentMessages.
//
// Schemas come from package avro. Which schemas must be parsed strictly
// (the candidate) or leniently (registered history) is the caller's choice,
// see avro.Options.
package compat
