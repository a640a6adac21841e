package httpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
