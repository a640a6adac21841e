package httpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/internal/redact"
)

// Service names the server a client talks to, for the messages and
// sentinels of its errors. Its implementations are empty structs, so that
// UnreachableError[S] and TimeoutError[S] are distinct types per client
// (errors.As tells a Connect error from a registry one).
type Service interface {
	Service() ServiceInfo
}

// ServiceInfo is what the errors of a service say.
type ServiceInfo struct {
	// Name is the server in messages, e.g. "kafka connect".
	Name string
	// Unreachable and Timeout are the sentinels of the errors.
	Unreachable, Timeout error
	// UnreachableHint and TimeoutHint end the messages ("" for none).
	UnreachableHint, TimeoutHint string
	// Answered are the words before the status in an APIError's message,
	// e.g. "registry answered"; "" puts the status alone.
	Answered string
	// APISentinel maps an API answer (HTTP status, error code or 0) to
	// the service's sentinel error, or nil; APIError.Unwrap returns it.
	APISentinel func(status, code int) error
}

func info[S Service]() ServiceInfo {
	var s S
	return s.Service()
}

// UnreachableError is returned when a request got no HTTP answer.
type UnreachableError[S Service] struct {
	URL string // base URL of the API, without credentials
	Err error  // the transport error
}

func (e *UnreachableError[S]) Error() string {
	s := info[S]()
	msg := fmt.Sprintf("%s at %s is unreachable: %v", s.Name, e.URL, RootCause(e.Err))
	if h := s.UnreachableHint; h != "" {
		msg += " (" + h + ")"
	}
	return redact.String(msg)
}

// Unwrap returns the service's unreachable sentinel and the transport error.
func (e *UnreachableError[S]) Unwrap() []error {
	return []error{info[S]().Unreachable, e.Err}
}

// TimeoutError is returned when a request got no complete answer within a
// bound of the client (the call's or the request's timeout).
type TimeoutError[S Service] struct {
	Method string
	URL    string        // the request URL, without credentials
	After  time.Duration // the bound that expired
}

func (e *TimeoutError[S]) Error() string {
	s := info[S]()
	msg := fmt.Sprintf("%s request %s %s timed out after %s", s.Name, e.Method, e.URL, e.After)
	if h := s.TimeoutHint; h != "" {
		msg += " (" + h + ")"
	}
	return redact.String(msg)
}

// Unwrap returns the service's timeout sentinel and
// context.DeadlineExceeded.
func (e *TimeoutError[S]) Unwrap() []error {
	return []error{info[S]().Timeout, context.DeadlineExceeded}
}

// APIError is a non-2xx answer of the API of service S: Kafka Connect
// and the Schema Registry both answer errors with {"error_code": N,
// "message": "…"}. It is one type for both clients, an instance of its
// own per service (connect.APIError, registry.APIError), so errors.As
// tells them apart and each unwraps to its own package's sentinels.
type APIError[S Service] struct {
	// Status is the HTTP status, always set (also for a body that is not
	// an error document, such as a proxy's HTML page).
	Status int
	// Code is the body's error_code: Connect's (usually equal to Status)
	// or the Confluent registry's (e.g. 40401). It is 0 when the body has
	// none: not a JSON error document, or one without error_code.
	Code int
	// Message is the body's message, or the start of the raw body (at
	// most MaxErrorMessage bytes and "…") when it is not an error document.
	Message string
	// Method and URL are the request's; URL may hold credentials, which
	// messages mask.
	Method, URL string
	// Op names the operation when the client names its calls (the
	// registry: `register "orders-value"`); "" otherwise, then the message
	// starts with Method and URL.
	Op string
}

// MaxErrorMessage bounds the raw body kept as an APIError's Message when
// the body is not an error document.
const MaxErrorMessage = 300

// NewAPIError builds the APIError of an answer with status and body to the
// request method url.
func NewAPIError[S Service](op, method, url string, status int, body []byte) *APIError[S] {
	code, msg, _ := ParseErrorBody(body, MaxErrorMessage)
	return &APIError[S]{Status: status, Code: code, Message: msg, Method: method, URL: url, Op: op}
}

// Error says where (Op, else Method and URL), the status, the error code
// when it differs from the status, and the message (the status text when
// there is none), in the service's wording (ServiceInfo.Answered);
// credentials are masked.
func (e *APIError[S]) Error() string {
	s := info[S]()
	where := e.Op
	if where == "" {
		where = e.Method + " " + e.URL
	}
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	code := ""
	if e.Code != 0 && e.Code != e.Status {
		code = fmt.Sprintf(" (error code %d)", e.Code)
	}
	if s.Answered == "" {
		return redact.String(fmt.Sprintf("%s: %d%s %s", where, e.Status, code, msg))
	}
	return redact.String(fmt.Sprintf("%s: %s %d%s: %s", where, s.Answered, e.Status, code, msg))
}

// Unwrap returns the service's sentinel for the answer
// (ServiceInfo.APISentinel), or nil.
func (e *APIError[S]) Unwrap() error {
	if f := info[S]().APISentinel; f != nil {
		return f(e.Status, e.Code)
	}
	return nil
}

// RootCause strips url.Error's "Get \"…\": " prefix, which repeats the URL.
func RootCause(err error) error {
	var u *url.Error
	if errors.As(err, &u) {
		return u.Err
	}
	return err
}

// ParseErrorBody reads the error body of Kafka Connect and the Schema
// Registry, {"error_code": N, "message": "…"}. When body is not such a
// document (a proxy's HTML page, plain text), ok is false and message is
// the start of the raw body, at most max bytes followed by "…".
func ParseErrorBody(body []byte, max int) (code int, message string, ok bool) {
	var b struct {
		Code    int    `json:"error_code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &b); err == nil && (b.Code != 0 || b.Message != "") {
		return b.Code, b.Message, true
	}
	raw := strings.TrimSpace(string(body))
	if len(raw) > max {
		raw = raw[:max] + "…"
	}
	return 0, raw, false
}
