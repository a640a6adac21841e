package registry

import (
	"errors"
	"net/http"

	"github.com/outboxctl/outboxctl/internal/httpclient"
)

// Sentinel errors. Every [*APIError] and [*UnreachableError] unwraps to the
// one that applies, so callers test with errors.Is and never look at codes.
var (
	// ErrSubjectNotFound: the subject does not exist, or only soft-deleted
	// versions are left (Confluent error code 40401).
	ErrSubjectNotFound = errors.New("subject not found")
	// ErrVersionNotFound: the subject has no such version (40402).
	ErrVersionNotFound = errors.New("version not found")
	// ErrSchemaNotFound: no schema with that id, or the schema given to a
	// lookup is not registered under the subject (40403).
	ErrSchemaNotFound = errors.New("schema not found")
	// ErrSubjectSoftDeleted: the subject is already soft-deleted (40404).
	ErrSubjectSoftDeleted = errors.New("subject soft-deleted")
	// ErrSubjectNotSoftDeleted: a permanent delete needs a soft delete
	// first (40405; Apicurio answers it with HTTP 409).
	ErrSubjectNotSoftDeleted = errors.New("subject not soft-deleted")
	// ErrIncompatible: the registry refused a new version as incompatible
	// at the subject's level (409).
	ErrIncompatible = errors.New("schema incompatible")
	// ErrInvalidSchema: the registry cannot parse the schema, or a
	// reference cannot be resolved (42201).
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrInvalidVersion: a version that is not a positive integer or
	// "latest" (42202).
	ErrInvalidVersion = errors.New("invalid version")
	// ErrInvalidLevel: an unknown compatibility level (42203).
	ErrInvalidLevel = errors.New("invalid compatibility level")
	// ErrUnauthorized: the credentials are missing or refused (401, 403).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrUnreachable: no answer from the registry (connection refused,
	// DNS, TLS, timeout), or a gateway in front of it answered 502, 503
	// or 504 without a registry error body.
	ErrUnreachable = errors.New("schema registry unreachable")
	// ErrTimeout: a request got no (complete) answer within the call's
	// timeout (WithTimeout) or the request timeout (WithRequestTimeout).
	ErrTimeout = errors.New("schema registry request timed out")
	// ErrAnswerTooLarge: an answer body exceeded WithMaxAnswerSize.
	ErrAnswerTooLarge = errors.New("schema registry answer too large")
	// ErrServer: any other error answer (5xx store errors 50001-50003,
	// unexpected statuses).
	ErrServer = errors.New("schema registry error")
)

// Confluent Schema Registry error codes (error_code in the JSON error body).
const (
	CodeSubjectNotFound       = 40401
	CodeVersionNotFound       = 40402
	CodeSchemaNotFound        = 40403
	CodeSubjectSoftDeleted    = 40404
	CodeSubjectNotSoftDeleted = 40405
	CodeSchemaVersionSoftDel  = 40406
	CodeVersionNotSoftDeleted = 40407
	CodeSubjectLevelNotSet    = 40408
	CodeIncompatible          = 409
	CodeInvalidSchema         = 42201
	CodeInvalidVersion        = 42202
	CodeInvalidLevel          = 42203
)

// APIError is a non-2xx answer of the registry. Its fields are Status
// (always the HTTP status: srclient loses it for non-JSON bodies, this
// package does not), Code (the registry's error_code, e.g. 40401; 0 when
// the body was not a registry error, for example an HTML page of a
// proxy), Message (the registry's message or the start of the raw body),
// Op (the operation, e.g. `register "orders-value"`), Method and URL (the
// last request of the call). It unwraps to the sentinel for Code, or for
// Status when Code is unknown. It is the registry's instance of the error
// type the Connect client shares (internal/httpclient), a type of its own
// for errors.As.
type APIError = httpclient.APIError[service]

// apiSentinel is the sentinel for code, or for status when code is unknown.
func apiSentinel(status, code int) error {
	switch code {
	case CodeSubjectNotFound:
		return ErrSubjectNotFound
	case CodeVersionNotFound:
		return ErrVersionNotFound
	case CodeSchemaNotFound:
		return ErrSchemaNotFound
	case CodeSubjectSoftDeleted:
		return ErrSubjectSoftDeleted
	case CodeSubjectNotSoftDeleted:
		return ErrSubjectNotSoftDeleted
	case CodeIncompatible:
		return ErrIncompatible
	case CodeInvalidSchema:
		return ErrInvalidSchema
	case CodeInvalidVersion:
		return ErrInvalidVersion
	case CodeInvalidLevel:
		return ErrInvalidLevel
	case 40101, 40301, 401, 403:
		return ErrUnauthorized
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrUnauthorized
	case code == 0 && status == http.StatusConflict:
		return ErrIncompatible
	case code == 0 && (status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout):
		return ErrUnreachable
	}
	return ErrServer
}

// service names the registry in the shared error types of
// internal/httpclient.
type service struct{}

func (service) Service() httpclient.ServiceInfo {
	return httpclient.ServiceInfo{Name: "schema registry", Unreachable: ErrUnreachable, Timeout: ErrTimeout,
		UnreachableHint: "is it running and the URL right?",
		Answered:        "registry answered", APISentinel: apiSentinel}
}

// UnreachableError is returned when a request got no HTTP answer. Its
// fields are URL (the base URL of the registry, without credentials) and
// Err (the transport error); it unwraps to ErrUnreachable and Err. It is
// the registry's instance of the error type the Connect client shares
// (internal/httpclient), a type of its own for errors.As.
type UnreachableError = httpclient.UnreachableError[service]

// TimeoutError is returned when a request got no complete answer in time
// (WithCallTimeout, WithRequestTimeout). Its fields are Method, URL (the
// request URL, without credentials) and After (the bound that expired);
// it unwraps to ErrTimeout and context.DeadlineExceeded.
type TimeoutError = httpclient.TimeoutError[service]

// newAPIError builds the APIError of the call's error answer.
func newAPIError(op string, cl *call) *APIError {
	return httpclient.NewAPIError[service](op, cl.method, cl.url, cl.status, cl.body)
}
