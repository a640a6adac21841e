package consumer

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/outboxctl/outboxctl/schemas/registry"
)

// IsConnectionError reports whether err says that a database (or another
// network peer) could not be reached or dropped the connection, so that the
// same work may succeed later: a net.Error (refused, reset, timeout),
// driver.ErrBadConn, sql.ErrConnDone, io.ErrUnexpectedEOF (a connection
// closed in the middle of a message), a deadline that passed, or an SQLSTATE of class 08 (connection exception), 57P (operator
// intervention: shutdown), 53 (insufficient resources), 40001
// (serialization failure) or 40P01 (deadlock), an error that pgx marks
// safe to retry, and the MySQL/MariaDB driver's equivalents (a broken
// connection, errors 1040, 1053, 1205, 1213). The Router classifies a
// handler error that IsConnectionError inside an inbox transaction as
// transient; a handler that calls another service returns Transient(err)
// itself.
func IsConnectionError(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne),
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE):
		return true
	}
	var st interface{ SQLState() string }
	if errors.As(err, &st) {
		s := st.SQLState()
		switch {
		case len(s) == 5 && (s[:2] == "08" || s[:2] == "53" || s[:3] == "57P"),
			s == "40001", s == "40P01":
			return true
		}
	}
	// pgx marks the errors after which a retry is safe (nothing was sent).
	var safe interface{ SafeToRetry() bool }
	if errors.As(err, &safe) && safe.SafeToRetry() {
		return true
	}
	return isMySQLConnError(err)
}

// isMySQLConnError recognises go-sql-driver/mysql's errors without importing
// the driver (which would register it in every program using this package):
// its ErrInvalidConn ("invalid connection": the connection broke in the
// middle of a query), and a *mysql.MySQLError ("Error 1213 (40001): …")
// with a transient number: 1040 too many connections, 1053 server
// shutdown, 1205 lock wait timeout, 1213 deadlock, or an SQLSTATE of class
// 08 or 40001.
func isMySQLConnError(err error) bool {
	stack := []error{err}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		msg := e.Error()
		if fmt.Sprintf("%T", e) == "*errors.errorString" && msg == "invalid connection" {
			return true
		}
		if fmt.Sprintf("%T", e) == "*mysql.MySQLError" {
			var num int
			var state string
			if _, scanErr := fmt.Sscanf(msg, "Error %d (%5s)", &num, &state); scanErr != nil {
				_, _ = fmt.Sscanf(msg, "Error %d", &num)
			}
			switch {
			case num == 1040, num == 1053, num == 1205, num == 1213,
				strings.HasPrefix(state, "08"), state == "40001":
				return true
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			stack = append(stack, u.Unwrap())
		case interface{ Unwrap() []error }:
			stack = append(stack, u.Unwrap()...)
		}
	}
	return false
}

// schemaError classifies an error of a schemasource.ByID: a schema id the
// registry does not know (ErrSchemaNotFound), a schema that is not Avro or
// has references (RegistryByID marks those permanent) is permanent; any
// other failure (unreachable, 5xx, timeouts) is transient: the registry may
// answer on the next attempt.
func schemaError(err error) error {
	switch {
	case IsPermanent(err), IsTransient(err):
		return err
	case errors.Is(err, registry.ErrSchemaNotFound):
		return Permanent(err)
	}
	return Transient(err)
}
