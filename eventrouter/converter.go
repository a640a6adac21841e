package eventrouter

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/outboxctl/outboxctl/internal/javatext"
)

// convert serializes (schema, value) with cv as the worker does for a key or
// a value. A nil result is a Kafka null.
func convert(cv Converter, s *Schema, v any) ([]byte, error) {
	switch cv.Kind {
	case JSONConverter:
		return jsonConverterFromConnect(cv, s, v)
	case StringConverter:
		if v == nil {
			return nil, nil
		}
		// a byte[] field (VariableScaleDecimal value, geometry wkb) is
		// printed as [B@ and PlaceholderIdentityHash (see identityhash.go)
		return []byte(javaToString(v)), nil
	case ByteArrayConverter:
		if s != nil && s.Type != Bytes {
			return nil, &TaskError{Exception: excData, Message: "Invalid schema type for ByteArrayConverter: " + javaTypeName(s.Type)}
		}
		if v == nil {
			return nil, nil
		}
		b, ok := v.([]byte)
		if !ok {
			return nil, &TaskError{Exception: excData, Message: "ByteArrayConverter is not compatible with objects of type " + strings.TrimPrefix(javaClassOf(v), "class ")}
		}
		return append([]byte{}, b...), nil
	case BinaryDataConverter:
		// Debezium's BinaryDataConverter: BYTES pass through, anything else
		// goes to the delegate converter.
		if s == nil || s.Type == Bytes {
			if v == nil {
				return nil, nil
			}
			if b, ok := v.([]byte); ok {
				return append([]byte{}, b...), nil
			}
		}
		if cv.Delegate == nil {
			return nil, &TaskError{Exception: excData, Message: "A delegate converter is required for non-binary data (value.converter.delegate.converter.type)"}
		}
		return convert(*cv.Delegate, s, v)
	}
	return nil, fmt.Errorf("%w: converter %s", ErrUnsupported, cv.Kind)
}

// convertHeader serializes one header value with the header converter.
func convertHeader(cv Converter, s *Schema, v any) ([]byte, error) {
	switch cv.Kind {
	case SimpleHeaderConverter:
		if v == nil {
			return nil, nil
		}
		str, err := valuesConvertToString(v, false)
		if err != nil {
			return nil, err
		}
		return []byte(str), nil
	case JSONConverter:
		// configured as a header converter; schemas.enable defaults to true
		return jsonConverterFromConnect(cv, s, v)
	}
	return convert(cv, s, v)
}

// ---------------------------------------------------------------- JsonConverter

func jsonConverterFromConnect(cv Converter, s *Schema, v any) ([]byte, error) {
	if s == nil && v == nil {
		return nil, nil
	}
	var b strings.Builder
	if cv.SchemasEnable {
		b.WriteString(`{"schema":`)
		if err := writeJSONSchema(&b, cv, s); err != nil {
			return nil, err
		}
		b.WriteString(`,"payload":`)
		if err := writeJSONValue(&b, cv, s, v, true); err != nil {
			return nil, err
		}
		b.WriteByte('}')
	} else {
		if err := writeJSONValue(&b, cv, s, v, true); err != nil {
			return nil, err
		}
	}
	return []byte(b.String()), nil
}

// writeJSONSchema renders JsonConverter.asJsonSchema: type, then
// fields/items/keys+values, optional, name, version, doc, parameters, default;
// a struct field's schema object ends with "field".
func writeJSONSchema(b *strings.Builder, cv Converter, s *Schema) error {
	return writeJSONSchemaField(b, cv, s, "")
}

func writeJSONSchemaField(b *strings.Builder, cv Converter, s *Schema, field string) error {
	if s == nil {
		b.WriteString("null")
		return nil
	}
	b.WriteString(`{"type":`)
	javatext.WriteString(b, string(s.Type))
	switch s.Type {
	case StructT:
		b.WriteString(`,"fields":[`)
		for i, f := range s.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSONSchemaField(b, cv, f.Schema, f.Name); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case Array:
		b.WriteString(`,"items":`)
		if err := writeJSONSchema(b, cv, s.Items); err != nil {
			return err
		}
	case Map:
		b.WriteString(`,"keys":`)
		if err := writeJSONSchema(b, cv, s.Keys); err != nil {
			return err
		}
		b.WriteString(`,"values":`)
		if err := writeJSONSchema(b, cv, s.Items); err != nil {
			return err
		}
	}
	b.WriteString(`,"optional":`)
	b.WriteString(strconv.FormatBool(s.Optional))
	if s.Name != "" {
		b.WriteString(`,"name":`)
		javatext.WriteString(b, s.Name)
	}
	if s.Version != nil {
		b.WriteString(`,"version":`)
		b.WriteString(strconv.Itoa(int(*s.Version)))
	}
	if s.Doc != "" {
		b.WriteString(`,"doc":`)
		javatext.WriteString(b, s.Doc)
	}
	if s.Parameters != nil {
		b.WriteString(`,"parameters":{`)
		for i, p := range s.Parameters {
			if i > 0 {
				b.WriteByte(',')
			}
			javatext.WriteString(b, p.Key)
			b.WriteByte(':')
			javatext.WriteString(b, p.Value)
		}
		b.WriteByte('}')
	}
	if s.Default != nil {
		b.WriteString(`,"default":`)
		if err := writeJSONValue(b, cv, s, s.Default, true); err != nil {
			return err
		}
	}
	if field != "" {
		b.WriteString(`,"field":`)
		javatext.WriteString(b, field)
	}
	b.WriteByte('}')
	return nil
}

// writeJSONValue renders JsonConverter.convertToJson. top distinguishes the
// top-level null (written as "null" too: Jackson serializes a NullNode).
func writeJSONValue(b *strings.Builder, cv Converter, s *Schema, v any, top bool) error {
	if v == nil {
		switch {
		case s == nil:
			b.WriteString("null")
			return nil
		case s.Default != nil && cv.ReplaceNullWithDefault:
			return writeJSONValue(b, cv, s, s.Default, top)
		case s.Optional:
			b.WriteString("null")
			return nil
		}
		return &TaskError{Exception: excData, Message: "Conversion error: null value for field that is required and has no default value"}
	}
	if s != nil && s.Name == NameDecimal {
		// JsonConverter's LogicalTypeConverter for Decimal: under the
		// default decimal.format=BASE64 the unscaled value's bytes, under
		// NUMERIC the number as BigDecimal.toString prints it
		d, ok := v.(Decimal)
		if !ok {
			return &TaskError{Exception: excData, Message: "Invalid type for Decimal, expected BigDecimal but was " + strings.TrimPrefix(javaClassOf(v), "class ")}
		}
		if cv.DecimalNumeric {
			b.WriteString(d.String())
			return nil
		}
		b.WriteByte('"')
		b.WriteString(base64.StdEncoding.EncodeToString(d.bytes()))
		b.WriteByte('"')
		return nil
	}
	if s != nil && isConnectLogical(s.Name) {
		return connectLogicalJSON(b, s.Name, v)
	}
	t := Type("")
	if s != nil {
		t = s.Type
	} else {
		t = schemaTypeOf(v)
		if t == "" {
			return &TaskError{Exception: excData, Message: "Java " + javaClassOf(v) + " does not have corresponding schema type."}
		}
	}
	bad := func() error {
		ts := "unknown schema"
		if s != nil {
			ts = javaTypeName(s.Type)
		}
		return &TaskError{Exception: excData, Message: "Invalid type for " + ts + ": " + javaClassOf(v)}
	}
	switch t {
	case Int8, Int16, Int32, Int64:
		switch n := v.(type) {
		case int8:
			if t != Int8 {
				return bad()
			}
			b.WriteString(strconv.Itoa(int(n)))
		case int16:
			if t != Int16 {
				return bad()
			}
			b.WriteString(strconv.Itoa(int(n)))
		case int32:
			if t != Int32 {
				return bad()
			}
			b.WriteString(strconv.Itoa(int(n)))
		case int64:
			if t != Int64 {
				return bad()
			}
			b.WriteString(strconv.FormatInt(n, 10))
		default:
			return bad()
		}
	case Float32:
		// JsonConverter serializes a DoubleNode/FloatNode with Jackson's
		// default generator, whose WRITE_NAN_AS_STRINGS quotes NaN and the
		// infinities ("NaN", "Infinity", "-Infinity"). Read from Jackson's
		// WriterBasedJsonGenerator.writeNumber; not exercised on the stack.
		f, ok := v.(float32)
		if !ok {
			return bad()
		}
		b.Write(javatext.AppendJSONFloat(nil, f))
	case Float64:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		b.Write(javatext.AppendJSONDouble(nil, f))
	case Boolean:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		b.WriteString(strconv.FormatBool(x))
	case String:
		x, ok := v.(string)
		if !ok {
			return bad()
		}
		javatext.WriteString(b, x)
	case Bytes:
		x, ok := v.([]byte)
		if !ok {
			return &TaskError{Exception: excData, Message: "Invalid type for bytes type: " + javaClassOf(v)}
		}
		b.WriteByte('"')
		b.WriteString(base64.StdEncoding.EncodeToString(x))
		b.WriteByte('"')
	case Array:
		l, ok := v.([]any)
		if !ok {
			return bad()
		}
		b.WriteByte('[')
		for i, e := range l {
			if i > 0 {
				b.WriteByte(',')
			}
			var es *Schema
			if s != nil {
				es = s.Items
			}
			if err := writeJSONValue(b, cv, es, e, false); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case Map:
		m, ok := v.(ConnectMap)
		if !ok {
			return bad()
		}
		var ks, vs *Schema
		if s != nil {
			ks, vs = s.Keys, s.Items
		}
		if ks != nil && ks.Type == String || ks == nil && m.stringKeys() {
			// JsonConverter's object mode: a JSON object in the map's
			// iteration order
			b.WriteByte('{')
			for i, e := range m {
				if i > 0 {
					b.WriteByte(',')
				}
				k, _ := e.Key.(string)
				javatext.WriteString(b, k)
				b.WriteByte(':')
				if err := writeJSONValue(b, cv, vs, e.Value, false); err != nil {
					return err
				}
			}
			b.WriteByte('}')
			return nil
		}
		// array mode: [[key, value], ...]
		b.WriteByte('[')
		for i, e := range m {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			if err := writeJSONValue(b, cv, ks, e.Key, false); err != nil {
				return err
			}
			b.WriteByte(',')
			if err := writeJSONValue(b, cv, vs, e.Value, false); err != nil {
				return err
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	case StructT:
		st, ok := v.(*Struct)
		if !ok {
			return bad()
		}
		if !st.Schema.Equal(s) {
			return &TaskError{Exception: excData, Message: "Mismatching schema."}
		}
		b.WriteByte('{')
		for i, f := range s.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			javatext.WriteString(b, f.Name)
			b.WriteByte(':')
			if err := writeJSONValue(b, cv, f.Schema, st.Values[i], false); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("%w: schema type %s", ErrUnsupported, t)
	}
	return nil
}

func isConnectLogical(name string) bool {
	switch name {
	case "org.apache.kafka.connect.data.Date",
		"org.apache.kafka.connect.data.Time", "org.apache.kafka.connect.data.Timestamp":
		return true
	}
	return false
}

// schemaTypeOf is ConnectSchema.schemaType(value.getClass()).
func schemaTypeOf(v any) Type {
	switch v.(type) {
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case float32:
		return Float32
	case float64:
		return Float64
	case bool:
		return Boolean
	case string:
		return String
	case []byte:
		return Bytes
	case []any:
		return Array
	case ConnectMap:
		return Map
	case *Struct:
		return StructT
	}
	return ""
}

// ---------------------------------------------------------------- toString

// byteArrayField reports whether field i of a struct of schema s holds a
// Java byte[] (Struct.toString prints it by identity): the value of an
// io.debezium.data.VariableScaleDecimal and the wkb of an
// io.debezium.data.geometry struct. A bytes column is a ByteBuffer, whose
// toString is modelled.
func byteArrayField(s *Schema, i int) bool {
	if s == nil || i >= len(s.Fields) {
		return false
	}
	switch s.Name {
	case NameVariableScaleDecimal:
		return s.Fields[i].Name == "value"
	case NameGeometry, NamePoint:
		return s.Fields[i].Name == "wkb"
	}
	return false
}

// javaToString is value.toString() as StringConverter calls it (a Java
// identity hash as PlaceholderIdentityHash).
func javaToString(v any) string {
	s, _ := javaText(v)
	return s
}

// javaText is javaToString and the byte offsets in it of the
// PlaceholderIdentityHash texts (byte[] fields printed by Struct.toString).
func javaText(v any) (string, []int) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case string:
		return x, nil
	case int8:
		return strconv.Itoa(int(x)), nil
	case int16:
		return strconv.Itoa(int(x)), nil
	case int32:
		return strconv.Itoa(int(x)), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float32:
		return javatext.FormatFloat(x), nil
	case float64:
		return javatext.FormatDouble(x), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []byte:
		// Debezium delivers BYTES columns as a HeapByteBuffer.
		return fmt.Sprintf("java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]", len(x), len(x)), nil
	case bigDecimal:
		return string(x), nil
	case Decimal:
		return x.String(), nil
	case JavaDate:
		return javaDateToString(x), nil
	case []any:
		// AbstractCollection.toString: [a, b]
		var b strings.Builder
		var hs []int
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			hs = appendJavaText(&b, hs, e)
		}
		b.WriteByte(']')
		return b.String(), hs
	case ConnectMap:
		// AbstractMap.toString: {k=v, k2=null}
		var b strings.Builder
		var hs []int
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			hs = appendJavaText(&b, hs, e.Key)
			b.WriteByte('=')
			hs = appendJavaText(&b, hs, e.Value)
		}
		b.WriteByte('}')
		return b.String(), hs
	case *Struct:
		var b strings.Builder
		var hs []int
		b.WriteString("Struct{")
		first := true
		for i, val := range x.Values {
			if val == nil {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(x.Schema.Fields[i].Name)
			b.WriteByte('=')
			if _, ok := val.([]byte); ok && byteArrayField(x.Schema, i) {
				// Object.toString of a byte[]: [B@ and the identity hash
				b.WriteString("[B@")
				hs = append(hs, b.Len())
				b.WriteString(PlaceholderIdentityHash)
				continue
			}
			hs = appendJavaText(&b, hs, val)
		}
		b.WriteByte('}')
		return b.String(), hs
	}
	return fmt.Sprint(v), nil
}

// appendJavaText writes javaText(v) to b and returns hs with its hash
// offsets (shifted to b) appended.
func appendJavaText(b *strings.Builder, hs []int, v any) []int {
	t, th := javaText(v)
	for _, o := range th {
		hs = append(hs, b.Len()+o)
	}
	b.WriteString(t)
	return hs
}

// valuesConvertToString is Connect's Values.convertToString (SimpleHeaderConverter).
func valuesConvertToString(v any, embedded bool) (string, error) {
	var b strings.Builder
	if err := valuesAppend(&b, v, embedded); err != nil {
		return "", err
	}
	return b.String(), nil
}

func valuesAppend(b *strings.Builder, v any, embedded bool) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case int8, int16, int32, int64, float32, float64, bool, bigDecimal, Decimal:
		b.WriteString(javaToString(x))
	case JavaDate:
		b.WriteString(javaDateValuesString(x))
	case string:
		if embedded {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), `"`, `\"`))
			b.WriteByte('"')
		} else {
			b.WriteString(x)
		}
	case []byte:
		s := base64.StdEncoding.EncodeToString(x)
		if embedded {
			b.WriteString(`"` + s + `"`)
		} else {
			b.WriteString(s)
		}
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := valuesAppend(b, e, true); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case ConnectMap:
		// Values.append of a Map: {"k":"v","n":null}, keys and values
		// embedded
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := valuesAppend(b, e.Key, true); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := valuesAppend(b, e.Value, true); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case *Struct:
		b.WriteByte('{')
		for i, f := range x.Schema.Fields {
			if i > 0 {
				b.WriteByte(',')
			}
			_ = valuesAppend(b, f.Name, true)
			b.WriteByte(':')
			fv, _ := x.Get(f.Name)
			if err := valuesAppend(b, fv, true); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return &TaskError{Exception: excData, Message: fmt.Sprintf("Failed to serialize unexpected value type %T", v)}
	}
	return nil
}

// IsText reports whether b is valid UTF-8 without control characters other
// than tab, newline and carriage return: such bytes are shown as text.
func IsText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return false
		}
	}
	return true
}
