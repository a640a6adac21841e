//go:build integration

package eventrouter_test

// #31: text the connector writes with a Java identity hash (arbitrary per
// JVM run): a StringConverter key, value and header writing a struct with
// a byte[] field (VariableScaleDecimal value, geometry / point wkb). The
// emulator writes PlaceholderIdentityHash and marks its offsets; the
// comparison (diffRecord, diffRelay) masks only those digits, the text
// around them must match byte for byte.

func init() { variantSets = append(variantSets, volatileVariants) }

// stringConverters: key, value and header all via StringConverter.
func stringConverters() map[string]string {
	return map[string]string{
		"key.converter":    "org.apache.kafka.connect.storage.StringConverter",
		"value.converter":  "org.apache.kafka.connect.storage.StringConverter",
		"header.converter": "org.apache.kafka.connect.storage.StringConverter",
		"errors.tolerance": "all",
	}
}

func volatileVariants() []variant {
	return []variant{
		// unconstrained numeric (and numeric[]) under precise: key,
		// headers, envelope (Struct{…,free=Struct{scale=…,value=[B@…}})
		variableScaleVariant("volatile_string_varscale", false, stringConverters()),
		// the same with the numeric as the payload
		variableScaleVariant("volatile_string_varscale_payload", true, stringConverters()),
		// MariaDB spatial: Point key, Geometry payload and headers, a
		// Point in the envelope
		spatialVariant("volatile_string_maria_spatial", stringConverters(), map[string]string{
			"table.field.event.key":             "g_pt",
			"table.field.event.payload":         "g_geom",
			"table.fields.additional.placement": "g_pt:header,g_line:header,g_coll:header,g_nn:header,g_poly:envelope:poly",
			"route.topic.replacement":           "dt$R.vsp.${routedByValue}",
		}),
		// PostgreSQL point: key, payload, headers
		pgPointVariant("volatile_string_pg_point", stringConverters(), map[string]string{
			"table.field.event.key":             "pt",
			"table.field.event.payload":         "pt",
			"table.fields.additional.placement": "pt:header,pt_nn:header,pt_nn:envelope:nn",
			"route.topic.replacement":           "dt$R.vpp.${routedByValue}",
		}),
	}
}
