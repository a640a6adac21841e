package consumer

// SetLegacyDecode sends r's Avro payloads through the generic path
// (resolve into goavro values, then assignAvro), for benchmarks and
// differential tests of the compiled path.
func SetLegacyDecode(r *Router, on bool) { r.legacyDecode = on }
