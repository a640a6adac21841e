// Package httptrace is an http.RoundTripper that writes a trace of every
// request (method, URL, status, duration, and the start of the request and
// answer bodies) with secrets masked: Authorization and similar headers,
// credentials in URLs and JDBC values (internal/redact), and the values of
// sensitive keys in JSON bodies (database.password, …). It is what
// `outboxctl -v` prints on stderr.
//
// The trace never changes what is sent or received. It is safe for
// concurrent use; lines of concurrent requests may interleave.
package httptrace

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/outboxctl/outboxctl/internal/redact"
)

// DefaultMaxBody is how much of a body is shown unless Options say
// otherwise.
const DefaultMaxBody = 2048

// Options configure a Transport.
type Options struct {
	// Sensitive reports a key whose JSON string values are masked (nil: no
	// key is, beyond the values given to Transport.Secrets).
	Sensitive func(key string) bool
	// MaxBody is how many bytes of each body are shown (default
	// DefaultMaxBody; negative: no bodies).
	MaxBody int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Transport traces the requests of Base to Out.
type Transport struct {
	Base http.RoundTripper
	Out  io.Writer
	opts Options
	st   *state
}

// state is shared by a Transport and the ones Wrap makes.
type state struct {
	mu      sync.Mutex // guards secrets and writes to Out
	secrets map[string]bool
}

// New returns a Transport writing the trace of base's requests to out.
func New(base http.RoundTripper, out io.Writer, opts Options) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	if opts.MaxBody == 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Transport{Base: base, Out: out, opts: opts, st: &state{secrets: map[string]bool{}}}
}

// Wrap returns a trace of base sharing t's output, options and secrets
// (for clients that build their own transport).
func (t *Transport) Wrap(base http.RoundTripper) http.RoundTripper {
	return &Transport{Base: base, Out: t.Out, opts: t.opts, st: t.st}
}

// Secrets adds literal values to mask wherever they appear (values shorter
// than 4 bytes are ignored: masking them would garble the trace).
func (t *Transport) Secrets(values ...string) {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	for _, v := range values {
		if len(v) >= 4 && !strings.HasPrefix(v, "${") {
			t.st.secrets[v] = true
		}
	}
}

// jsonPairRE matches "key": "value" pairs of JSON text (also in a truncated
// body).
var jsonPairRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)

// mask masks a body or URL for output and learns the values of sensitive
// keys, so that an answer echoing them is masked too.
func (t *Transport) mask(s string) string {
	if t.opts.Sensitive != nil {
		var learned []string
		s = jsonPairRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := jsonPairRE.FindStringSubmatch(m)
			if !t.opts.Sensitive(sub[1]) || sub[3] == "" || strings.HasPrefix(sub[3], "${") {
				return m
			}
			learned = append(learned, sub[3])
			return `"` + sub[1] + `"` + sub[2] + `"` + redact.Mask + `"`
		})
		t.Secrets(learned...)
	}
	t.st.mu.Lock()
	vals := make([]string, 0, len(t.st.secrets))
	for v := range t.st.secrets {
		vals = append(vals, v)
	}
	t.st.mu.Unlock()
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	for _, v := range vals {
		s = strings.ReplaceAll(s, v, redact.Mask)
	}
	return redact.String(s)
}

func (t *Transport) shorten(b []byte, total int64) string {
	s := string(b)
	if t.opts.MaxBody > 0 && len(s) > t.opts.MaxBody {
		s = s[:t.opts.MaxBody]
		return fmt.Sprintf("%s… (%d bytes shown of %s)", s, t.opts.MaxBody, sizeText(total))
	}
	return s
}

func sizeText(n int64) string {
	if n < 0 {
		return "more"
	}
	return fmt.Sprintf("%d", n)
}

func (t *Transport) printf(format string, args ...any) {
	t.st.mu.Lock()
	defer t.st.mu.Unlock()
	fmt.Fprintf(t.Out, format, args...)
}

// RoundTrip sends req with Base and writes its trace.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", req.Method, t.mask(req.URL.String()))
	names := make([]string, 0, len(req.Header))
	for k := range req.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range req.Header[k] {
			fmt.Fprintf(&b, "> %s: %s\n", k, redact.Header(k, v))
		}
	}
	if req.Body != nil && req.Body != http.NoBody && t.opts.MaxBody > 0 {
		data, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(data))
		if len(data) > 0 {
			fmt.Fprintf(&b, "> %s\n", t.shorten([]byte(t.mask(string(data))), int64(len(data))))
		}
	}
	t.printf("%s", b.String())
	start := t.opts.Now()
	resp, err := t.Base.RoundTrip(req)
	d := t.opts.Now().Sub(start).Round(time.Millisecond)
	if err != nil {
		t.printf("< %s %s: no answer after %s: %s\n", req.Method, t.mask(req.URL.String()), d, t.mask(err.Error()))
		return nil, err
	}
	t.printf("< %s %s: %s (%s)\n", req.Method, t.mask(req.URL.String()), resp.Status, d)
	if t.opts.MaxBody > 0 && resp.Body != nil {
		resp.Body = &tracedBody{rc: resp.Body, t: t, total: resp.ContentLength}
	}
	return resp, nil
}

// tracedBody shows the start of an answer body once it is closed or read
// to the end; it keeps at most 64 KiB for masking, then MaxBody is shown.
type tracedBody struct {
	rc    io.ReadCloser
	t     *Transport
	buf   []byte
	total int64 // Content-Length, or the size read at EOF; -1: unknown
	read  int64
	done  bool
}

const keepBody = 64 << 10

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.read += int64(n)
	if room := keepBody - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(n, room)]...)
	}
	if err == io.EOF {
		b.total = b.read
		b.flush()
	}
	return n, err
}

func (b *tracedBody) Close() error {
	b.flush()
	return b.rc.Close()
}

func (b *tracedBody) flush() {
	if b.done {
		return
	}
	b.done = true
	if len(b.buf) == 0 {
		return
	}
	b.t.printf("< %s\n", b.t.shorten([]byte(b.t.mask(string(b.buf))), b.total))
}
