package eventrouter

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// NameVariableScaleDecimal is Debezium's io.debezium.data.VariableScaleDecimal:
// the value of an unconstrained PostgreSQL numeric (no precision, so no
// fixed scale) under decimal.handling.mode=precise, a struct of the scale
// and the unscaled value's bytes.
const NameVariableScaleDecimal = "io.debezium.data.VariableScaleDecimal"

// variableScaleDecimalSchema is SchemaFactory.datatypeVariableScaleDecimalSchema:
// struct io.debezium.data.VariableScaleDecimal version 1, doc "Variable
// scaled decimal", fields scale (int32) and value (bytes), both required.
func variableScaleDecimalSchema(optional bool) *Schema {
	return &Schema{
		Type: StructT, Optional: optional, Name: NameVariableScaleDecimal, Version: i32(1), Doc: "Variable scaled decimal",
		Fields: []Field{
			{Name: "scale", Schema: &Schema{Type: Int32}},
			{Name: "value", Schema: &Schema{Type: Bytes}},
		},
	}
}

// variableScaleDecimal is the struct PostgresValueConverter.convertDecimal
// delivers for d under precise: stripTrailingZeros (zero is 0, scale 0), a
// negative scale set to 0, then VariableScaleDecimal.fromLogical: value is
// BigInteger.toByteArray of the unscaled value (a byte[], not a
// ByteBuffer: Struct.toString prints its identity hash), scale the scale.
func variableScaleDecimal(s *Schema, d Decimal) *Struct {
	d = d.stripTrailingZeros()
	if d.Scale < 0 {
		d = d.setScale(0)
	}
	st := NewStruct(s)
	st.Values[0] = d.Scale
	st.Values[1] = d.bytes()
	return st
}

// stripTrailingZeros is BigDecimal.stripTrailingZeros (a zero becomes
// BigDecimal.ZERO, scale 0).
func (d Decimal) stripTrailingZeros() Decimal {
	u := new(big.Int).Set(d.Unscaled)
	if u.Sign() == 0 {
		return Decimal{Unscaled: u}
	}
	scale := d.Scale
	ten := big.NewInt(10)
	q, r := new(big.Int), new(big.Int)
	for {
		q.QuoRem(u, ten, r)
		if r.Sign() != 0 {
			break
		}
		u.Set(q)
		scale--
	}
	return Decimal{Unscaled: u, Scale: scale}
}

// isUnsignedBigintDecimal reports a MySQL / MariaDB BIGINT UNSIGNED
// (zerofill too) column under bigint.unsigned.handling.mode=precise: its
// schema (ColumnSchemaWith) is a Decimal.
func isUnsignedBigintDecimal(kind ConnectorKind, sqlType string, s *Schema) bool {
	if kind == Postgres || kind == "" || s == nil || s.Name != NameDecimal || !unsignedRe.MatchString(sqlType) {
		return false
	}
	t, _ := parseSQLType(sqlType)
	return t == "bigint"
}

// unsignedBigintDecimal is a BIGINT UNSIGNED value under
// bigint.unsigned.handling.mode=precise: the unsigned value as a Decimal
// of scale 0 (BinlogUnsignedIntegerConverter.convertUnsignedBigint adds
// 2^64 to the binlog's negative long).
func unsignedBigintDecimal(sqlType, text string) (any, error) {
	u, err := strconv.ParseUint(strings.Trim(strings.TrimSpace(text), `"`), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: %s value %q: want 0 to 18446744073709551615", ErrInvalidEvent, sqlType, text)
	}
	return Decimal{Unscaled: new(big.Int).SetUint64(u)}, nil
}

// setScaleDown is BigDecimal.setScale(scale, RoundingMode.DOWN) for a
// smaller scale: the digits beyond it dropped (towards zero).
func (d Decimal) setScaleDown(scale int32) Decimal {
	if scale >= d.Scale {
		return d.setScale(scale)
	}
	div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-scale)), nil)
	return Decimal{Unscaled: new(big.Int).Quo(d.Unscaled, div), Scale: scale}
}
