package connect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/outboxctl/outboxctl/internal/redact"
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
	// ErrUnreachable: no HTTP answer at all (connection refused, DNS, TLS).
	// A request that got no answer in time is ErrTimeout instead.
	ErrUnreachable = errors.New("kafka connect unreachable")
	// ErrTimeout: a request got no (complete) answer within the request
	// timeout (WithRequestTimeout). [*TimeoutError] unwraps to it and to
	// context.DeadlineExceeded.
	ErrTimeout = errors.New("kafka connect request timed out")
	// ErrAnswerTooLarge: an answer body exceeded the size limit
	// (WithMaxAnswerSize).
	ErrAnswerTooLarge = errors.New("kafka connect answer too large")
	// ErrBadAnswer: Connect answered 2xx with a body of the wrong shape
	// (not JSON, wrong types, required fields missing); see [*BadAnswerError].
	ErrBadAnswer = errors.New("unexpected kafka connect answer")
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
	return redact.String(fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Status, msg))
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
	return redact.String(fmt.Sprintf("kafka connect at %s is unreachable: %v (is the worker running and the URL right?)", e.URL, rootCause(e.Err)))
}

// TimeoutError is returned when a request got no complete answer within
// the request timeout.
type TimeoutError struct {
	Method string
	URL    string        // the request URL
	After  time.Duration // the timeout that expired
}

func (e *TimeoutError) Error() string {
	return redact.String(fmt.Sprintf("kafka connect request %s %s timed out after %s (raise the request timeout if the worker is just slow)", e.Method, e.URL, e.After))
}

// Unwrap returns ErrTimeout and context.DeadlineExceeded.
func (e *TimeoutError) Unwrap() []error { return []error{ErrTimeout, context.DeadlineExceeded} }

// BadAnswerError is a 2xx answer whose body does not have the shape the
// Connect REST API documents.
type BadAnswerError struct {
	Method string
	URL    string
	Reason string // what is wrong, e.g. "status has no connector.state"
}

func (e *BadAnswerError) Error() string {
	return redact.String(fmt.Sprintf("%s %s: unexpected answer from kafka connect: %s (is the URL a Kafka Connect REST API?)", e.Method, e.URL, e.Reason))
}

// Unwrap returns ErrBadAnswer.
func (e *BadAnswerError) Unwrap() error { return ErrBadAnswer }

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
