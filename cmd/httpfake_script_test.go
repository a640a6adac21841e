package cmd_test

import (
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// httpfakeCmd starts a misbehaving HTTP server for the rest of the script
// and sets the environment variable VAR to its URL:
//
//	httpfake VAR hang   no request is ever answered
//	httpfake VAR huge   every request gets a 200 JSON body of up to 1 GiB
func httpfakeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: httpfake VAR hang|huge")
	}
	stop := make(chan struct{})
	var h http.HandlerFunc
	switch args[1] {
	case "hang":
		h = func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-stop:
			}
		}
	case "huge":
		h = func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`["`))
			chunk := []byte(strings.Repeat("x", 64<<10))
			for i := 0; i < 1<<14; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}
	default:
		ts.Fatalf("unknown httpfake mode %q", args[1])
	}
	srv := httptest.NewServer(h)
	ts.Defer(func() { close(stop); srv.Close() })
	ts.Setenv(args[0], srv.URL)
}
