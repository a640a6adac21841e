// Package javatext is the one place where outboxctl reproduces how Java and
// Jackson turn values into text. Kafka Connect's JsonConverter, Debezium's
// EventRouter, Avro Java's Schema.toString and Avro Java's JsonEncoder all
// write their output through the JVM, and outboxctl predicts that output
// byte for byte; every such rule lives here so that a fix reaches every
// caller at once.
//
// # Floating-point numbers
//
// [FormatDouble] and [FormatFloat] (and their Append forms) are Java's
// Double.toString and Float.toString as specified since JDK 19 (JDK-4511638,
// Raffaello Giulietti's shortest-decimal algorithm, the same output as
// Jackson 2.15+'s "fast" writer): the shortest decimal that rounds to the
// value, or, when one digit would do, the closest decimal of at most two
// digits (Double.MIN_VALUE is 4.9E-324, not 5.0E-324); plain notation with
// at least one fraction digit for 1.0E-3 <= |x| < 1.0E7, otherwise
// d.dddE[-]n; NaN, Infinity, -Infinity, 0.0 and -0.0 spelt as Java spells
// them.
//
// JDK 17 and earlier (FloatingDecimal) sometimes print a longer, non-shortest
// decimal: Float.toString(1.09951163E12f) is "1.09951163E12" on JDK 17 and
// "1.0995116E12" on JDK 19+, Double.toString(2.0E23) is
// "1.9999999999999998E23" on JDK 17. In a sample of random bit patterns
// about 0.3% of doubles and 11% of floats print differently; this package
// follows JDK 19+ only. Every printed value still parses back to the same
// number on either JDK.
//
// [AppendJSONDouble] and [AppendJSONFloat] are what a default Jackson
// JsonGenerator writes for a double or float: the Java string for finite
// values and, because WRITE_NAN_AS_STRINGS is on by default, the quoted
// strings "NaN", "Infinity" and "-Infinity".
//
// # Strings
//
// [AppendString] and [WriteString] quote a string the way Jackson's default
// JsonGenerator does (jackson-core 2.x CharTypes): '"' and '\\' escaped,
// \b \t \n \f \r short, the other control characters below U+0020 as \u00XX
// with upper-case hex, and everything else, '/', DEL, U+2028 and all
// non-ASCII text included, as is. Bytes are copied, so invalid UTF-8 passes
// through unchanged; callers that hold decoded Java strings hand in valid
// UTF-8. [AppendLatin1String] writes bytes as the Java String
// new String(b, ISO_8859_1), the way Avro's JSON encoding represents bytes
// and fixed values.
//
// # Parsing JSON
//
// [ParseJSON] reads one JSON value as Jackson's parser (jackson-core 2.15+)
// and ObjectMapper.readTree do, into a [Node] tree: object keys in source
// order, a repeated key keeping its first position and its last value,
// numbers kept as written with [Node.NumberKind] telling the IntNode,
// LongNode, BigIntegerNode or DoubleNode readTree would build, a lone \u
// surrogate read as U+FFFD, and every node carrying its byte offset (the
// caller turns offsets into line:col). [ParseOptions] select what differs
// between callers: comments (Avro Java's schema parser enables Jackson's
// ALLOW_COMMENTS; Kafka Connect and Debezium do not) and the nesting bound
// (Jackson's default 1000, or none for PostgreSQL's jsonb). What follows the
// value is left to the caller: readTree ignores it, Avro rejects it.
//
// PostgreSQL's escape_json (lower-case hex, used for jsonb columns) is not
// Jackson's and stays with the eventrouter's jsonb normalizer.
package javatext
