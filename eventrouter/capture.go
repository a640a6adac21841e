package eventrouter

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotCapturable: the connector cannot capture a table with such a
// column at all: its task fails before it delivers a record.
var ErrNotCapturable = errors.New("the connector cannot capture the table")

// NotCapturableError is a column of a type the connector's DDL parser
// fails on (MariaDB inet4, inet6 under the 3.5 connector). It unwraps to
// ErrNotCapturable.
type NotCapturableError struct {
	Column, Type string
}

func (e *NotCapturableError) Error() string {
	return fmt.Sprintf("column %s (%s): the MariaDB connector cannot capture the table: its DDL parser (Debezium 3.5) has no %s type, "+
		"and the task fails with io.debezium.text.ParsingException \"DDL statement couldn't be parsed\" on the table's CREATE TABLE "+
		"(at the schema snapshot, or when the binlog carries DDL naming the type; such DDL in the binlog fails every MariaDB connector of the server)",
		e.Column, e.Type, strings.ToLower(binlogBase(e.Type)))
}

// Unwrap returns ErrNotCapturable.
func (e *NotCapturableError) Unwrap() error { return ErrNotCapturable }

// NotCapturable reports a column type the connector of kind fails on
// when it reads the table's DDL: MariaDB's inet4 and inet6, which the 3.5
// connector's DDL parser does not know ("no viable alternative at input",
// seen on the stack).
func NotCapturable(kind ConnectorKind, sqlType string) bool {
	if kind != MariaDB && kind != MySQL {
		return false
	}
	switch strings.ToLower(binlogBase(sqlType)) {
	case "inet4", "inet6":
		return true
	}
	return false
}

// captureTaskError is the task failure a NotCapturable column gives: the
// connector's ParsingException (its message carries the whole CREATE
// TABLE statement and the parser's position, which are not reproduced).
func captureTaskError(column, sqlType string) *TaskError {
	return &TaskError{Stage: StageConnector, Exception: "io.debezium.text.ParsingException",
		Message: "DDL statement couldn't be parsed. Please open a GitHub issue at https://github.com/debezium/dbz/issues with the statement 'CREATE TABLE …' " +
			"(no viable alternative at the " + strings.ToLower(binlogBase(sqlType)) + " type of column " + column + "; the statement and the parser's position are not reproduced)"}
}
