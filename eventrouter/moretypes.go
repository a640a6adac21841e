package eventrouter

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// NameLtree is a PostgreSQL ltree column (io.debezium.data.Ltree: the
// label path as ltree_out prints it).
const NameLtree = "io.debezium.data.Ltree"

// pgUnknownOther are the PostgreSQL types pgjdbc reports as Types.OTHER
// and PostgresValueConverter has no converter for (its schemaBuilder falls
// through to JdbcValueConverters, which gives them no schema): under
// include.unknown.datatypes=false the connector leaves the column out of
// its records, as for the geometric types (seen on the stack with Debezium
// 3.6.1 and PostgreSQL 15: tsquery, pg_lsn, regclass, regtype,
// txid_snapshot, xid and the multiranges).
var pgUnknownOther = map[string]bool{
	"tsquery": true, "pg_lsn": true, "txid_snapshot": true, "pg_snapshot": true, "xid": true, "xid8": true, "cid": true, "tid": true,
	"regclass": true, "regtype": true, "regproc": true, "regprocedure": true, "regoper": true, "regoperator": true,
	"regconfig": true, "regdictionary": true, "regnamespace": true, "regrole": true, "regcollation": true,
	"int4multirange": true, "int8multirange": true, "nummultirange": true, "datemultirange": true, "tsmultirange": true, "tstzmultirange": true,
	// seen too: jsonpath, aclitem, refcursor; composite is a CREATE TYPE …
	// AS (…) row type (pgjdbc's Types.STRUCT, no converter either)
	"jsonpath": true, "aclitem": true, "refcursor": true, "composite": true,
}

// isPgOid reports a PostgreSQL oid column (PostgresValueConverter: int64).
func isPgOid(kind ConnectorKind, sqlType string) bool {
	if kind != Postgres && kind != "" {
		return false
	}
	return strings.ToLower(strings.TrimSpace(sqlType)) == "oid"
}

// pgOidValue is the value of an oid column as oidin reads the text (an
// unsigned 32-bit integer; a negative value down to -2147483648 wraps, as
// strtoul does) and the connector delivers it: a long.
func pgOidValue(text string) (int64, error) {
	t := strings.TrimSpace(text)
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < -2147483648 || n > 4294967295 {
		return 0, fmt.Errorf("%w: oid %q: out of range or invalid input syntax", ErrInvalidEvent, text)
	}
	if n < 0 {
		n += 1 << 32
	}
	return n, nil
}

// isMariaDBUUID reports a MariaDB UUID column (10.7 and later):
// MariaDbValueConverters gives it io.debezium.data.Uuid.
func isMariaDBUUID(kind ConnectorKind, sqlType string) bool {
	if kind != MariaDB {
		return false
	}
	t, _ := parseSQLType(sqlType)
	return t == "uuid"
}

// mariaDBUUIDValue is the io.debezium.data.Uuid string the MariaDB
// connector streams for a UUID column from its text (as MariaDB reads it:
// 32 hex digits, hyphens allowed between them, no blanks). The binlog row image
// holds the value as a BINARY(16) with its trailing zero bytes stripped,
// and the connector reads the bytes as a BigInteger (convertUuid: new
// UUID(bigInt >> 64, bigInt)): a UUID ending in k zero bytes comes out
// shifted right by k bytes, k zero bytes in front (seen on the stack:
// 123e4567-e89b-12d3-a456-426614174000 streams as
// 00123e45-67e8-9b12-d3a4-564266141740).
func mariaDBUUIDValue(text string) (string, error) {
	// MariaDB's UUID input: hyphens anywhere between digits, any number
	// in a row; not first, not last, no blanks (checked on MariaDB 10.11:
	// INSERT fails "Incorrect uuid value")
	digits, ok := uuidHexDigits(text, func(s string, i int, digits []byte) bool {
		return len(digits) > 0 && i+1 < len(s)
	})
	if !ok {
		return "", fmt.Errorf("%w: uuid %q: invalid input", ErrInvalidEvent, text)
	}
	b, _ := hex.DecodeString(string(digits))
	k := 0
	for k < len(b) && b[len(b)-1-k] == 0 {
		k++
	}
	shifted := make([]byte, 16)
	copy(shifted[k:], b[:16-k])
	return formatUUID(hex.EncodeToString(shifted)), nil
}

// uuidHexDigits is the 32 lower-case hex digits of a UUID's text s, or
// false. A '-' is skipped where hyphenOK(s, i, digits so far) allows it;
// any other character but a hex digit is invalid.
func uuidHexDigits(s string, hyphenOK func(s string, i int, digits []byte) bool) ([]byte, bool) {
	digits := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' && hyphenOK(s, i, digits):
			continue
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			digits = append(digits, c)
		case c >= 'A' && c <= 'F':
			digits = append(digits, c-'A'+'a')
		default:
			return nil, false
		}
	}
	return digits, len(digits) == 32
}

// formatUUID is 32 hex digits d in the 8-4-4-4-12 form.
func formatUUID(d string) string {
	return d[:8] + "-" + d[8:12] + "-" + d[12:16] + "-" + d[16:20] + "-" + d[20:]
}

// isPgTsvector reports a PostgreSQL tsvector column
// (PostgresValueConverter: io.debezium.data.Tsvector, the text).
func isPgTsvector(kind ConnectorKind, sqlType string) bool {
	if kind != Postgres && kind != "" {
		return false
	}
	return strings.ToLower(strings.TrimSpace(sqlType)) == "tsvector"
}

// mariaDBUUIDSnapshot is the io.debezium.data.Uuid a MariaDB UUID column
// has in a snapshot read (op r): the JDBC driver's java.util.UUID, its
// canonical lower-case text (seen on the stack: no shift, unlike a
// streamed value). raw is the sample value (a JSON string).
func mariaDBUUIDSnapshot(raw json.RawMessage) (any, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return nil, fmt.Errorf("%w: uuid value %s: a string expected", ErrInvalidEvent, raw)
	}
	var digits []byte
	for _, c := range []byte(strings.ToLower(strings.TrimSpace(text))) {
		if c != '-' {
			digits = append(digits, c)
		}
	}
	if _, err := hex.DecodeString(string(digits)); err != nil || len(digits) != 32 {
		return nil, fmt.Errorf("%w: uuid %q: invalid input", ErrInvalidEvent, text)
	}
	d := string(digits)
	return d[:8] + "-" + d[8:12] + "-" + d[12:16] + "-" + d[16:20] + "-" + d[20:], nil
}
