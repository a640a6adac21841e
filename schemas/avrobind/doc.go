// Package avrobind decodes Avro binary straight into Go values: structs,
// slices, maps, pointers and scalars, with the writer schema resolved to a
// reader schema on the way, as Avro Java's resolving reader does. It is the
// fast typed path of the consumer SDK; package resolve stays the generic
// decoder (goavro native values, Avro JSON) and goavro the encoder.
//
// # Start here
//
// Three things to learn: Compile, Plan.Decode and Cache.
//
//	p, err := avrobind.Compile(writer, reader, reflect.TypeFor[OrderCreated]())
//	var o OrderCreated
//	err = p.Decode(payload, &o) // raw Avro binary, no Confluent header
//
// Compile walks the writer schema, the reader schema and the Go type once
// and builds a plan: a tree of small closures that read the writer's bytes
// and store each value at its precomputed offset in the Go value (unsafe
// pointers; reflection only at compile time, except reflect.Value calls to
// grow slices, fill maps and allocate pointed-to values). There are no
// intermediate maps: writer-only fields are skipped, promotions, enum
// mappings and union branch choices are settled in the plan, and reader
// defaults are encoded once as Avro binary and decoded from those bytes for
// each datum, so a default is never shared between two decoded values.
//
// A consumer sees many writer versions (one per registry id) and reads them
// with one reader schema into one type; Cache compiles each (writer id,
// reader, type) once, on first use, and is safe for concurrent use.
// Check(reader, type, allowUnmapped) is the registration-time check: a
// struct field that matches no reader field, or a Go type that cannot hold
// the reader's type, is an error before the first record arrives.
//
// # Resolution
//
// The rules are package resolve's, so the results are Avro Java 1.12's
// (the live oracle test compares them): promotions int to long, float,
// double; long to float, double; float to double; string to and from bytes.
// Record fields by name and reader aliases; defaults for reader fields the
// writer lacks; enum symbols by name with the reader enum's default for
// unknown ones; enum and fixed names and fixed sizes; unions on either side.
// The choices that need Java's fine print come from package resolve, so
// both decoders make them in one place: the alias renaming
// (resolve.NewAliases) and the union branches (resolve.ReaderBranch for a
// plain writer type, resolve.UnionBranches for a writer union).
// Compile fails with resolve's *resolve.Error kinds where resolve.Compile
// does; what only some data hit (an unknown enum symbol, a writer union
// branch the reader cannot read, items of a non-empty array that do not
// resolve) fails Decode for those data only, as in Java.
//
// # Go types
//
// The reader schema decides what a Go type may hold:
//
//	record           struct (fields by `avro:"name"` tag, else the Go name,
//	                 exactly, then case-insensitively; `avro:"-"` skips one;
//	                 the fields of an untagged embedded struct are promoted)
//	array, map       []T, map[K]T with a string-kind K
//	union            the branch's type; null is the zero value, so
//	                 ["null", X] is *X (nil for null) or X (zero for null);
//	                 every non-null branch must fit the Go type
//	enum             a string kind (the symbol)
//	boolean          bool
//	int              int32, int64, int, float64
//	long             int64, int
//	float            float32, float64
//	double           float64
//	string, bytes    a string kind or []byte
//	fixed            []byte, [N]byte of its size, or a string kind
//	null             anything (the zero value)
//	date, timestamp-millis, timestamp-micros   time.Time (UTC)
//	time-millis, time-micros                   time.Duration
//	decimal (bytes or fixed)                   *big.Rat, big.Rat, float64, string
//	uuid and other logical types               as their base type
//
// A pointer to any of these is allocated when a (non-null) value arrives.
// Narrower types (int16 for an int, int32 for a long, uint kinds) are
// ErrType at Compile: a plan never truncates.
//
// An interface (any), and a map[string]any for a record, get plain values,
// what the generic path (resolve's goavro values, unions unwrapped) gives:
// records and maps as map[string]any, arrays as []any, unions as the
// branch's value (nil for null), enums as strings, int as int32, long as
// int64, float as float32, double as float64, bytes and fixed as []byte,
// logical types as above (date and timestamps time.Time, times
// time.Duration, decimals *big.Rat). Other Go types (channels, funcs, a
// record into a map[string]string) are ErrUnsupported.
//
// Strings of an input up to 4 KiB are cut from one copy of the input (one
// allocation for all of them); larger inputs copy each string, so that a
// small string kept by a handler does not keep a large record alive.
//
// # Errors
//
// Decode errors are *Error values with the place in the datum
// ("lines[1].sku") that unwrap to resolve.ErrDecode (truncated data,
// trailing bytes, a negative length, an int longer than 5 bytes or a long
// longer than 10, which Java rejects as invalid encodings), resolve.ErrEnumSymbol
// or resolve.ErrUnionBranch. Paths are built only on failure.
//
// # What the package does not do
//
// Encode is the way back, for the outbox writer's typed write: a Go value
// into Avro binary of one schema, with the same field mapping and Go types
// (ErrEncode for a value that does not fit).
//
// It does not parse schemas (package avro), fetch them from a
// registry, or strip the Confluent wire header. Recursive schemas need recursive Go types through pointers
// or slices (type Node struct{ Next *Node }).
package avrobind
