package consumer

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// decodeJSON decodes a JSON payload into dst (a pointer). Two shapes that a
// misconfigured value converter produces are unwrapped first, unless dst
// itself wants a string:
//   - a JSON string literal holding JSON (JsonConverter with
//     schemas.enable=false on a string payload column: "double encoded");
//   - a Kafka Connect envelope {"schema":{…,"type":…},"payload":…}
//     (JsonConverter with schemas.enable=true), exactly those two keys.
//
// Struct fields are named as on the Avro path: the json tag's name wins,
// else the avro tag's name, else the Go field name (keys matched exactly,
// then case-insensitively); see jsonnames.go.
func decodeJSON(value []byte, dst any) error {
	t := reflect.TypeOf(dst).Elem()
	v := bytes.TrimSpace(value)
	if t.Kind() != reflect.String {
		v = unwrapJSON(v)
	}
	return json.Unmarshal(renameJSON(v, t), dst)
}

func unwrapJSON(v []byte) []byte {
	for range 2 {
		switch {
		case len(v) > 0 && v[0] == '"':
			var s string
			if json.Unmarshal(v, &s) != nil {
				return v
			}
			inner := bytes.TrimSpace([]byte(s))
			if !json.Valid(inner) {
				return v
			}
			v = inner
		case len(v) > 0 && v[0] == '{':
			var env map[string]json.RawMessage
			if json.Unmarshal(v, &env) != nil || len(env) != 2 {
				return v
			}
			schema, hasSchema := env["schema"]
			payload, hasPayload := env["payload"]
			if !hasSchema || !hasPayload {
				return v
			}
			var sch map[string]json.RawMessage
			if json.Unmarshal(schema, &sch) != nil {
				return v
			}
			if _, ok := sch["type"]; !ok {
				return v
			}
			v = bytes.TrimSpace(payload)
		default:
			return v
		}
	}
	return v
}
