package connect

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/outboxctl/outboxctl/internal/httpclient"
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

// APIError is a non-2xx answer of the Connect REST API, whose error body
// is {"error_code": N, "message": "…"}. Its fields are Status (the HTTP
// status), Code (Connect's error_code, usually equal to Status; 0 when
// the body has none, e.g. a proxy's HTML page), Message (Connect's
// message, or the start of the raw body), Method and URL (the request).
// It unwraps to ErrNotFound (404), ErrConflict (409), ErrBadRequest (400)
// or nothing. It is the Kafka Connect instance of the error type the
// registry client shares (internal/httpclient), a type of its own for
// errors.As.
type APIError = httpclient.APIError[service]

// apiSentinel is the sentinel of an answer with status: ErrNotFound,
// ErrConflict, ErrBadRequest, or nil.
func apiSentinel(status, _ int) error {
	switch status {
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusConflict:
		return ErrConflict
	case http.StatusBadRequest:
		return ErrBadRequest
	}
	return nil
}

// service names Kafka Connect in the shared error types of
// internal/httpclient.
type service struct{}

func (service) Service() httpclient.ServiceInfo {
	return httpclient.ServiceInfo{Name: "kafka connect", Unreachable: ErrUnreachable, Timeout: ErrTimeout,
		UnreachableHint: "is the worker running and the URL right?",
		TimeoutHint:     "raise the request timeout if the worker is just slow",
		APISentinel:     apiSentinel}
}

// UnreachableError is returned when the request got no HTTP answer. Its
// fields are URL (the base URL of the Connect REST API) and Err (the
// transport error); it unwraps to ErrUnreachable and Err. It is the
// Kafka Connect instance of the error type the registry client shares
// (internal/httpclient), a type of its own for errors.As.
type UnreachableError = httpclient.UnreachableError[service]

// TimeoutError is returned when a request got no complete answer within
// the request timeout (WithRequestTimeout) or the call's
// (WithCallTimeout). Its fields are Method, URL (the request URL) and
// After (the timeout that expired); it unwraps to ErrTimeout and
// context.DeadlineExceeded.
type TimeoutError = httpclient.TimeoutError[service]

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
