package eventrouter

import (
	"encoding/base64"
	"encoding/hex"
)

// The binary.handling.mode values that deliver a binary column (PostgreSQL
// bytea; MySQL / MariaDB binary(n), varbinary, *blob) as a string
// (CommonConnectorConfig.BinaryHandlingMode: the schema is a plain
// SchemaBuilder.string()). bytes, the default, delivers the bytes.
const (
	BinaryBase64        = "base64"
	BinaryBase64URLSafe = "base64-url-safe"
	BinaryHex           = "hex"
)

// stringBinaryMode returns mode when it is one of the binary.handling.mode
// values that deliver a string, "" otherwise.
func stringBinaryMode(mode string) string {
	switch mode {
	case BinaryBase64, BinaryBase64URLSafe, BinaryHex:
		return mode
	}
	return ""
}

// BinaryMode returns the binary.handling.mode (base64, base64-url-safe,
// hex) under which ColumnSchemaWith made the schema of a binary column a
// string; "" for any other schema.
func (s *Schema) BinaryMode() string {
	if s == nil {
		return ""
	}
	return s.binaryMode
}

// EncodeBinary is the value the connector delivers for the bytes b of a
// binary column of schema s: b itself under binary.handling.mode=bytes,
// else the string JdbcValueConverters gives: java.util.Base64's basic
// encoder (base64: A-Z a-z 0-9 + /, '=' padding), its URL encoder
// (base64-url-safe: - and _ for + and /, '=' padding kept) or
// HexConverter.convertToHexString (hex: two lower-case digits a byte).
// The bytes are those the server stores (a MySQL / MariaDB binary(n)
// right-padded with zero bytes, normalizeBinaryData).
func EncodeBinary(s *Schema, b []byte) any {
	switch s.BinaryMode() {
	case BinaryBase64:
		return base64.StdEncoding.EncodeToString(b)
	case BinaryBase64URLSafe:
		return base64.URLEncoding.EncodeToString(b)
	case BinaryHex:
		return hex.EncodeToString(b)
	}
	return b
}
