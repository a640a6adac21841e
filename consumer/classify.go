package consumer

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/outboxctl/outboxctl/schemas/registry"
)

// IsConnectionError reports whether err says that a database (or another
// network peer) could not be reached or dropped the connection, so that the
// same work may succeed later: a net.Error (refused, reset, timeout),
// driver.ErrBadConn, sql.ErrConnDone, an unexpected EOF, a deadline that
// passed, or an SQLSTATE of class 08 (connection exception), 57P (operator
// intervention: shutdown), 53 (insufficient resources), 40001
// (serialization failure) or 40P01 (deadlock). The Router classifies a
// handler error that IsConnectionError inside an inbox transaction as
// transient.
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
		errors.Is(err, io.EOF),
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
	return false
}

// schemaError classifies an error of a SchemaSource: a schema id the
// registry does not know (ErrSchemaNotFound), a schema that is not Avro or
// has references (RegistrySchemas marks those permanent) is permanent; any
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
