// Package resolve reads Avro data written with one schema (the writer's) as
// values of another (the reader's), the way Avro Java's decoder does: the
// schema resolution of the Avro specification that goavro lacks.
//
// # Start here
//
// Three things to learn: Compile, Resolver.Decode and Cache.
//
//	writer, _ := avro.Parse(writerJSON) // the schema the producer used (registry id N)
//	reader, _ := avro.Parse(readerJSON) // the schema the consumer code expects
//	r, err := resolve.Compile(writer, reader)
//	v, err := r.Decode(payload)        // reader-shaped goavro native value
//	js, err := r.DecodeJSON(payload)   // or the reader datum in Avro JSON
//
// Compile walks both schemas once and builds a plan: a tree of small
// closures, one per place where the data must change. Decode lets goavro
// decode the bytes with the writer schema and runs the plan over the result,
// mostly in place (goavro hands out fresh maps and slices on every decode).
// Parts of the schemas that match exactly get no closure at all, so reading
// with the writer's own schema costs what goavro costs (recursive types and
// reader logical types aside).
//
// A consumer usually sees many writer versions (one per registry id) and
// reads them all with one reader schema. Cache compiles each (writer id,
// reader) pair once, on first use, and is safe for concurrent use:
//
//	var cache resolve.Cache
//	r, err := cache.Resolver(schemaID, reader, func(id int) (avro.Schema, error) {
//		return fetchAndParse(id) // e.g. a registry lookup
//	})
//
// Payloads are raw Avro binary: strip the Confluent wire header (magic byte
// and 4-byte id) first. Exactly one datum is read; trailing bytes are an
// error (goavro would silently ignore them). Varints are read with Avro
// Java's rules (avro.Normalizer, before goavro): an int of more than 5 bytes
// or a long of more than 10 bytes is an ErrDecode error wrapping
// avro.ErrInvalidInt or avro.ErrInvalidLong, and the bits Java drops from a
// 5-byte int or a 10-byte long are dropped; a boolean byte other than 1 is
// false, as in Java.
//
// # The rules
//
// The writer and reader schemas are matched as Avro Java 1.12's
// GenericDatumReader matches them (and TestJavaOracle checks against it):
//
//   - Promotions: int to long, float or double; long to float or double;
//     float to double; string to bytes and bytes to string.
//   - Records: fields are matched by name; a reader field alias naming a
//     writer field renames it (and wins over a reader field of that name, as
//     Java's Schema.applyAliases does) when the writer record has, after
//     renaming, the name of the reader record holding the alias. Writer fields the reader lacks are
//     decoded and dropped. Reader fields the writer lacks take their default;
//     without one, Compile fails with ErrMissingDefault. Record names are not
//     compared outside unions (Java's decoder does not compare them either).
//   - Defaults are converted once, at Compile time, to reader values and
//     copied for each datum (callers may modify what they get): bytes and
//     fixed from ISO-8859-1 strings (code point n is byte n), int and long
//     exactly, enum by symbol, records field by field with the sub-fields'
//     own defaults, unions as a value of their first branch (or, for an Avro
//     1.12 default that only fits a later branch, that branch).
//   - Enums: symbols are matched by name; a writer symbol the reader lacks
//     takes the reader enum's default, and without one the datum fails with
//     ErrEnumSymbol. A field default is not a fallback for unknown symbols.
//   - Enum and fixed names: the same short name, after the writer is
//     renamed by the aliases of the whole reader schema (Java's
//     Schema.applyAliases: a reader type with the writer's full name as an
//     alias gives the writer its name). Fixed sizes must be equal. Field
//     aliases apply to the writer record that gets the reader record's name.
//   - Unions: a writer union is resolved branch by branch, for the branch
//     the datum actually took. A writer branch the reader cannot read fails
//     only the data that take it (ErrUnionBranch): null read as "string"
//     fails for the null datum alone. A writer union equivalent to the
//     reader union (same length, same types position by position, named
//     types by short name) is read by position; otherwise each writer
//     branch, like a plain writer type read as a reader union, takes the
//     branch ReaderBranch names (Java's firstMatchingBranch): the first
//     branch of the same type (named types: the same full name after the
//     aliases; an enum or fixed in another namespace is NOT taken, so
//     Compile fails as Java's decoder does), else the first record branch
//     that resolves without an error at its top level (preferring one with
//     the same short name), else the first branch the writer type promotes
//     to, in reader order. So int into ["null","long","int"] is {"int": …},
//     and int into ["null","double","long"] is {"double": …}. Decoders that
//     must agree with Java use ReaderBranch and UnionBranches.
//   - Arrays and maps resolve element by element; an element type that does
//     not resolve fails only non-empty arrays and maps.
//   - Recursive types work: plans are memoized per (writer, reader) pair.
//   - Logical types play no part in matching; the reader's logical type
//     applies to the result. Decode returns what goavro returns for the
//     reader schema: time.Time for timestamp-millis/-micros and date,
//     time.Duration for time-millis/-micros, *big.Rat for decimal (the
//     writer's unscaled bytes read with the reader's scale, as Java does), and
//     union keys as goavro spells them ("long.timestamp-millis",
//     "bytes.decimal"). Other logical types keep their base values.
//     DecodeJSON writes logical values as their base type, as Avro JSON does.
//
// # Deviations from Java, on purpose
//
//   - A reader field whose alias and name match two different writer fields
//     is a Compile error (ErrAmbiguousField), as in SchemaCompatibility.
//   - Avro Java 1.12.2 rejects an array of ints read as doubles ("Collection
//     claims 2 elements with at least 8 bytes each"): its collection-size
//     check uses the reader's element size. That is a Java bug; this package
//     reads such arrays.
//   - DecodeJSON writes floats with the shortest digits that round-trip
//     (Java 19+'s Float.toString; JDK 17 may print more digits for the same
//     float), map entries sorted by key, and {} for a record without fields
//     (Java 1.12.2's JsonEncoder writes nothing at all for a datum that
//     contains one).
//
// TestJavaOracle, TestJavaOracleRandom and TestJavaOracleRandomNames
// (thousands of random writer/reader pairs and data, the latter with
// renamed types, aliases and named decoys in reader unions) compare this package with Avro Java 1.12.2 when
// OUTBOX_AVRO_JAVA_CP names its classpath; apart from the points above, the
// results are the same, including which data fail.
//
// # Errors
//
// Every error is an *Error naming the place in the reader schema (Path, in
// the location syntax of Avro Java's SchemaCompatibility: "/fields/2/type")
// and the innermost reader field, e.g.
//
//	/fields/2 "status": enum symbol "X" not in reader and no default
//
// It unwraps to a kind sentinel (errors.Is): ErrTypeMismatch,
// ErrNameMismatch, ErrFixedSize, ErrMissingDefault, ErrAmbiguousField,
// ErrMissingUnionBranch and ErrInvalidDefault, which also unwrap to
// ErrIncompatible and come from Compile; ErrEnumSymbol, ErrUnionBranch and
// ErrDecode (truncated, corrupt or trailing bytes) come from decoding one
// datum. ErrUnsupported is a writer schema goavro cannot decode (the empty
// union, names goavro rejects).
//
// # What the package does not do
//
// It does not parse schemas (package avro does), check compatibility
// levels (package compat), talk to a registry, or frame messages. It does
// not encode. It trusts goavro for the bytes: goavro preallocates arrays
// for a block's claimed item count up to goavro.MaxBlockCount (2^31 by
// default), so lower that package variable when the input is untrusted.
package resolve
