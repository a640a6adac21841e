//go:build integration

package eventrouter_test

// jsonConverters is the connector map of a variant whose key, value and
// header converters are all JsonConverter with schemas.enable=schemas
// (errors.tolerance=all, as most variants have); more keys can be added to
// the returned map.
func jsonConverters(schemas bool) map[string]string {
	on := "false"
	if schemas {
		on = "true"
	}
	return map[string]string{
		"key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": on,
		"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": on,
		"header.converter": "org.apache.kafka.connect.json.JsonConverter", "header.converter.schemas.enable": on,
		"errors.tolerance": "all",
	}
}

// stringKeyJSON is the converters most variants use: the key through
// StringConverter, the value (and the headers with jsonHeaders) through
// JsonConverter with schemas, errors.tolerance=all; extra holds more
// connector settings as key, value pairs.
func stringKeyJSON(jsonHeaders bool, extra ...string) map[string]string {
	m := map[string]string{
		"key.converter":   "org.apache.kafka.connect.storage.StringConverter",
		"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
		"errors.tolerance": "all",
	}
	if jsonHeaders {
		m["header.converter"] = "org.apache.kafka.connect.json.JsonConverter"
		m["header.converter.schemas.enable"] = "true"
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}
