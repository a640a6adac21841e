package eventrouter

import "strings"

// PgDomainPrefix starts the sample column type of a PostgreSQL domain:
// "domain numeric(10,2)" is a column of a CREATE DOMAIN … AS numeric(10,2)
// type. The connector resolves a domain to its base type (its schema and
// value are the base type's, with the domain's length and scale), so the
// emulator models the column as the base type given after the prefix.
const PgDomainPrefix = "domain "

// A domain declared NOT NULL (CREATE DOMAIN d AS text NOT NULL) is given
// as "domain text not null": the connector makes its field required
// (optional false) even when the column itself is nullable (seen on the
// stack), as pgjdbc's metadata reports such a column NOT NULL.
const pgDomainNotNull = " not null"

// PgDomainBase returns the base type of a PostgreSQL sample column type
// given as "domain <base type>[ not null]" (PgDomainPrefix), and whether
// it is one.
func PgDomainBase(kind ConnectorKind, sqlType string) (string, bool) {
	b, _, ok := pgDomain(kind, sqlType)
	return b, ok
}

// pgDomain is PgDomainBase and whether the domain is declared NOT NULL.
func pgDomain(kind ConnectorKind, sqlType string) (base string, notNull, ok bool) {
	if kind != Postgres && kind != "" {
		return sqlType, false, false
	}
	t := strings.TrimSpace(sqlType)
	if len(t) <= len(PgDomainPrefix) || !strings.EqualFold(t[:len(PgDomainPrefix)], PgDomainPrefix) {
		return sqlType, false, false
	}
	base = strings.TrimSpace(t[len(PgDomainPrefix):])
	if l := strings.ToLower(base); strings.HasSuffix(l, pgDomainNotNull) {
		base, notNull = strings.TrimSpace(base[:len(base)-len(pgDomainNotNull)]), true
	}
	return base, notNull, true
}

// pgBaseType is sqlType, or its base type for a domain.
func pgBaseType(kind ConnectorKind, sqlType string) string {
	b, _ := PgDomainBase(kind, sqlType)
	return b
}

// pgVectorTypes are PostgreSQL int2vector and oidvector (pg_type's
// typelem int2 / oid): PostgresValueConverter gives them the array schema
// of their element (int16, int64; elements not optional), but the array
// converter finds no element in their text ("1 2 3", no braces): every
// non-empty value is the empty array and an empty vector (text "") is
// NULL (seen on the stack with Debezium 3.6.1 and PostgreSQL 15, streamed
// rows and snapshot reads).
var pgVectorTypes = map[string]Type{"int2vector": Int16, "oidvector": Int64}

// pgVectorSchema is the schema of an int2vector or oidvector column; ok
// is false for another type.
func pgVectorSchema(kind ConnectorKind, sqlType string, nullable bool) (*Schema, bool) {
	if kind != Postgres && kind != "" {
		return nil, false
	}
	elem, ok := pgVectorTypes[strings.ToLower(strings.TrimSpace(sqlType))]
	if !ok {
		return nil, false
	}
	return &Schema{Type: Array, Items: &Schema{Type: elem}, Optional: nullable}, true
}
