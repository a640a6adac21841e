package httpclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/internal/httpclient"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// TestErrorTypesPerService: the shared error types are one type per
// client, so errors.As tells a Connect error from a registry one, and each
// unwraps to its own package's sentinel; messages keep their wording.
func TestErrorTypesPerService(t *testing.T) {
	cause := fmt.Errorf("dial: %w", errors.New("connection refused"))
	for _, tc := range []struct {
		name                 string
		err                  error
		connectAs, registrAs bool
		is, isNot            error
		msg                  string
	}{
		{"connect unreachable", &connect.UnreachableError{URL: "http://c:8083", Err: cause}, true, false, connect.ErrUnreachable, registry.ErrUnreachable,
			"kafka connect at http://c:8083 is unreachable: dial: connection refused (is the worker running and the URL right?)"},
		{"registry unreachable", &registry.UnreachableError{URL: "http://r:8081", Err: cause}, false, true, registry.ErrUnreachable, connect.ErrUnreachable,
			"schema registry at http://r:8081 is unreachable: dial: connection refused (is it running and the URL right?)"},
		{"connect timeout", &connect.TimeoutError{Method: "GET", URL: "http://c:8083/connectors", After: time.Second}, true, false, connect.ErrTimeout, registry.ErrTimeout,
			"kafka connect request GET http://c:8083/connectors timed out after 1s (raise the request timeout if the worker is just slow)"},
		{"registry timeout", &registry.TimeoutError{Method: "GET", URL: "http://r:8081/subjects", After: time.Second}, false, true, registry.ErrTimeout, connect.ErrTimeout,
			"schema registry request GET http://r:8081/subjects timed out after 1s"},
		{"connect api", &connect.APIError{Status: 404, Code: 404, Message: "Connector x not found", Method: "GET", URL: "http://c:8083/connectors/x"}, true, false, connect.ErrNotFound, registry.ErrSubjectNotFound,
			"GET http://c:8083/connectors/x: 404 Connector x not found"},
		{"connect api without code", &connect.APIError{Status: 409, Method: "PUT", URL: "http://u:pw@c:8083/connectors/x/config"}, true, false, connect.ErrConflict, registry.ErrIncompatible,
			"PUT http://u:********@c:8083/connectors/x/config: 409 Conflict"},
		{"registry api", &registry.APIError{Op: `subject "s"`, Status: 404, Code: 40401, Message: "Subject 's' not found.", Method: "GET", URL: "http://r:8081/subjects/s/versions"}, false, true, registry.ErrSubjectNotFound, connect.ErrNotFound,
			`subject "s": registry answered 404 (error code 40401): Subject 's' not found.`},
		{"registry api without code", &registry.APIError{Op: "subjects", Status: 409, Message: "<html>conflict</html>"}, false, true, registry.ErrIncompatible, connect.ErrConflict,
			"subjects: registry answered 409: <html>conflict</html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := fmt.Errorf("op: %w", tc.err)
			var cu *connect.UnreachableError
			var ct *connect.TimeoutError
			var ru *registry.UnreachableError
			var rt *registry.TimeoutError
			var ca *connect.APIError
			var ra *registry.APIError
			if got := errors.As(wrapped, &cu) || errors.As(wrapped, &ct) || errors.As(wrapped, &ca); got != tc.connectAs {
				t.Errorf("errors.As connect type = %v", got)
			}
			if got := errors.As(wrapped, &ru) || errors.As(wrapped, &rt) || errors.As(wrapped, &ra); got != tc.registrAs {
				t.Errorf("errors.As registry type = %v", got)
			}
			if !errors.Is(wrapped, tc.is) || errors.Is(wrapped, tc.isNot) {
				t.Errorf("errors.Is: want %v, not %v", tc.is, tc.isNot)
			}
			if tc.err.Error() != tc.msg {
				t.Errorf("message = %q\nwant      %q", tc.err.Error(), tc.msg)
			}
		})
	}
	if !errors.Is(&connect.TimeoutError{}, context.DeadlineExceeded) || !errors.Is(&registry.UnreachableError{Err: cause}, cause) {
		t.Error("the timeout does not unwrap to context.DeadlineExceeded, or unreachable to its cause")
	}
}

// testService is a service of the tests, with a sentinel per status.
type testService struct{}

var errTestNotFound = errors.New("test not found")

func (testService) Service() httpclient.ServiceInfo {
	return httpclient.ServiceInfo{Name: "test", APISentinel: func(status, code int) error {
		if status == 404 {
			return errTestNotFound
		}
		return nil
	}}
}

// TestNewAPIError: the error_code and message of an error body, Code 0
// and the start of the raw body otherwise; the request and operation kept;
// the service's sentinel from the status.
func TestNewAPIError(t *testing.T) {
	long := strings.Repeat("x", httpclient.MaxErrorMessage+10)
	for _, tc := range []struct {
		status int
		body   string
		code   int
		msg    string
		is     error
	}{
		{404, `{"error_code":40401,"message":"Subject 's' not found."}`, 40401, "Subject 's' not found.", errTestNotFound},
		{404, `{"message":"no code"}`, 0, "no code", errTestNotFound},
		{502, "<html>bad gateway</html>", 0, "<html>bad gateway</html>", nil},
		{500, long, 0, long[:httpclient.MaxErrorMessage] + "…", nil},
	} {
		got := httpclient.NewAPIError[testService]("op", "GET", "http://r/x", tc.status, []byte(tc.body))
		want := httpclient.APIError[testService]{Status: tc.status, Code: tc.code, Message: tc.msg, Method: "GET", URL: "http://r/x", Op: "op"}
		if *got != want {
			t.Errorf("%.20q: = %+v\nwant %+v", tc.body, *got, want)
		}
		if errors.Unwrap(got) != tc.is {
			t.Errorf("%.20q: unwraps to %v, want %v", tc.body, errors.Unwrap(got), tc.is)
		}
	}
}

func TestAuthSet(t *testing.T) {
	for _, tc := range []struct {
		a    httpclient.Auth
		want string
	}{
		{httpclient.Auth{}, ""},
		{httpclient.Auth{User: "u", Password: "p"}, "Basic dTpw"},
		{httpclient.Auth{User: "u"}, "Basic dTo="},
		{httpclient.Auth{User: "u", Password: "p", Token: "t"}, "Bearer t"},
	} {
		h := http.Header{}
		tc.a.Set(h)
		if got := h.Get("Authorization"); got != tc.want {
			t.Errorf("%+v: Authorization = %q, want %q", tc.a, got, tc.want)
		}
	}
}

func TestParseErrorBody(t *testing.T) {
	for _, tc := range []struct {
		body string
		max  int
		code int
		msg  string
		ok   bool
	}{
		{`{"error_code":40401,"message":"Subject not found"}`, 100, 40401, "Subject not found", true},
		{`{"message":"only a message"}`, 100, 0, "only a message", true},
		{"  <html>bad gateway</html>\n", 100, 0, "<html>bad gateway</html>", false},
		{strings.Repeat("x", 20), 10, 0, strings.Repeat("x", 10) + "…", false},
	} {
		code, msg, ok := httpclient.ParseErrorBody([]byte(tc.body), tc.max)
		if code != tc.code || msg != tc.msg || ok != tc.ok {
			t.Errorf("%q: = %d, %q, %v; want %d, %q, %v", tc.body, code, msg, ok, tc.code, tc.msg, tc.ok)
		}
	}
}

func TestTLSFilesErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		f   httpclient.TLSFiles
		msg string
	}{
		{httpclient.TLSFiles{CAFile: dir + "/none.pem"}, "svc tls: ca file: stat " + dir + "/none.pem"},
		{httpclient.TLSFiles{CAFile: dir}, "svc tls: ca file: " + dir + " is not a regular file but a directory"},
		{httpclient.TLSFiles{KeyFile: "k.pem"}, "svc tls: give both a client certificate and its key"},
		{httpclient.TLSFiles{CertFile: dir + "/c.pem", KeyFile: dir + "/k.pem"}, "svc tls: client certificate:"},
	} {
		if _, err := tc.f.Config("svc tls"); err == nil || !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("%+v: err = %v, want %q", tc.f, err, tc.msg)
		}
	}
	cfg, err := httpclient.TLSFiles{InsecureSkipVerify: true}.Config("svc tls")
	if err != nil || !cfg.InsecureSkipVerify || cfg.MinVersion == 0 {
		t.Errorf("= %+v, %v", cfg, err)
	}
}
