package connect

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// Sentinel errors. Every [*APIError] and [*UnreachableError] unwraps to one of
// them where it applies.
var (
	// ErrNotFound: the connector (or plugin, or task) does not exist (404).
	ErrNotFound = errors.New("not found")
	// ErrConflict: Connect refused the request with 409, either because the
	// group is rebalancing (retried by the client before it gives up) or
	// because of a real conflict such as creating a connector that exists.
	ErrConflict = errors.New("conflict")
	// ErrBadRequest: Connect rejected the request as invalid (400), for
	// example a config that does not validate or an offset change on a
	// connector that is not STOPPED.
	ErrBadRequest = errors.New("bad request")
	// ErrUnreachable: no HTTP answer at all (connection refused, DNS, TLS,
	// timeout).
	ErrUnreachable = errors.New("kafka connect unreachable")
	// ErrUnsupported: the worker is too old for the requested feature.
	ErrUnsupported = errors.New("not supported by this kafka connect version")
)

// APIError is a non-2xx answer of the Connect REST API. Connect's error body
// is {"error_code": N, "message": "…"}.
type APIError struct {
	Status    int    // HTTP status code
	ErrorCode int    // Connect's error_code (usually equal to Status)
	Message   string // Connect's message, or the raw body when it is not JSON
	Method    string
	URL       string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Status, msg)
}

// Unwrap returns the sentinel matching the status: ErrNotFound, ErrConflict,
// ErrBadRequest, or nil.
func (e *APIError) Unwrap() error {
	switch e.Status {
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusConflict:
		return ErrConflict
	case http.StatusBadRequest:
		return ErrBadRequest
	}
	return nil
}

// UnreachableError is returned when the request got no HTTP answer.
type UnreachableError struct {
	URL string // base URL of the Connect REST API
	Err error  // the transport error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("kafka connect at %s is unreachable: %v (is the worker running and the URL right?)", e.URL, rootCause(e.Err))
}

// Unwrap returns both ErrUnreachable and the transport error.
func (e *UnreachableError) Unwrap() []error { return []error{ErrUnreachable, e.Err} }

// rootCause strips url.Error's "Get \"…\": " prefix, which repeats the URL.
func rootCause(err error) error {
	var u *url.Error
	if errors.As(err, &u) {
		return u.Err
	}
	return err
}
