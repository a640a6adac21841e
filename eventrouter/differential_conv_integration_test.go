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
