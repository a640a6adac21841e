//go:build integration

package schemas

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestIntegrationSubjectLength asks the stack's registry about subjects
// that do not exist: up to MaxSubjectLength it looks them up (404), one
// character more it refuses the name (400), as ValidSubjectName says.
func TestIntegrationSubjectLength(t *testing.T) {
	st := itest.Require(t, itest.Registry)
	prefix := "itest-subject-" + itest.Suffix() + "-"
	for _, n := range []int{MaxSubjectLength - 1, MaxSubjectLength, MaxSubjectLength + 1} {
		subject := prefix + strings.Repeat("s", n-len(prefix))
		resp, err := http.Get(strings.TrimRight(st.SchemaRegistryURL, "/") + "/subjects/" + url.PathEscape(subject) + "/versions")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		valid := ValidSubjectName(subject) == nil
		t.Logf("%d characters: ValidSubjectName %v, registry %d", n, valid, resp.StatusCode)
		if want := map[bool]int{true: http.StatusNotFound, false: http.StatusBadRequest}[valid]; resp.StatusCode != want {
			t.Errorf("%d characters: ValidSubjectName valid=%v, registry answers %d (want %d): %s", n, valid, resp.StatusCode, want, body)
		}
	}
}
