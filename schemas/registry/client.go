package registry

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/riferrei/srclient"

	"github.com/outboxctl/outboxctl/internal/limitio"
	"github.com/outboxctl/outboxctl/internal/redact"
)

// DefaultTimeout bounds every call (all its HTTP requests together) unless
// WithTimeout says otherwise.
const DefaultTimeout = 15 * time.Second

// Client talks to a Confluent-compatible Schema Registry (Confluent, or
// Apicurio's ccompat API). It is safe for concurrent use. It caches nothing:
// every call asks the registry, so "latest" is never stale.
type Client struct {
	base       string // without trailing slash and without userinfo
	user       string
	pass       string
	token      string
	timeout    time.Duration
	rt         http.RoundTripper
	tlsCfg     *TLSConfig
	userAgent  string
	reqTimeout time.Duration // per HTTP request; 0: none
	wrap       func(http.RoundTripper) http.RoundTripper
	maxAnswer  int64
}

// WithTransportWrapper wraps the transport (the one of WithTransport, or
// the default with WithTLS applied), overriding no wrapping. outboxctl uses
// it to trace requests.
func WithTransportWrapper(wrap func(http.RoundTripper) http.RoundTripper) Opt {
	return func(c *Client) { c.wrap = wrap }
}

// DefaultMaxAnswerSize is the largest answer body a client reads.
const DefaultMaxAnswerSize = 32 << 20

// WithRequestTimeout bounds each HTTP request of a call (sending it and
// reading its whole answer), overriding the default of no per-request
// bound (the call's WithTimeout still applies). A request that exceeds
// either bound fails with a [*TimeoutError] (ErrTimeout).
func WithRequestTimeout(d time.Duration) Opt { return func(c *Client) { c.reqTimeout = d } }

// WithMaxAnswerSize limits the answer bodies read, overriding
// DefaultMaxAnswerSize (n <= 0 keeps it). A larger answer fails with
// ErrAnswerTooLarge.
func WithMaxAnswerSize(n int64) Opt { return func(c *Client) { c.maxAnswer = n } }

// Opt configures a Client.
type Opt func(*Client)

// WithBasicAuth sends HTTP basic credentials, overriding credentials given
// in the URL.
func WithBasicAuth(user, password string) Opt {
	return func(c *Client) { c.user, c.pass = user, password }
}

// WithBearerToken sends "Authorization: Bearer token", overriding basic
// credentials.
func WithBearerToken(token string) Opt { return func(c *Client) { c.token = token } }

// WithTimeout bounds each call, overriding DefaultTimeout.
func WithTimeout(d time.Duration) Opt { return func(c *Client) { c.timeout = d } }

// WithTransport sets the HTTP transport, overriding a clone of
// http.DefaultTransport (WithTLS is then ignored).
func WithTransport(rt http.RoundTripper) Opt { return func(c *Client) { c.rt = rt } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Opt { return func(c *Client) { c.userAgent = ua } }

// TLSConfig are the TLS files of the registry connection. Empty fields
// keep Go's defaults (system roots, no client certificate).
type TLSConfig struct {
	// CAFile is a PEM bundle of the CAs to trust, added to no others.
	CAFile string
	// CertFile and KeyFile are the client certificate and key (PEM), for
	// mutual TLS; both or neither.
	CertFile, KeyFile string
	// InsecureSkipVerify disables server certificate verification.
	InsecureSkipVerify bool
}

// WithTLS sets the TLS files, overriding the system defaults.
func WithTLS(t TLSConfig) Opt { return func(c *Client) { c.tlsCfg = &t } }

// NewClient returns a client of the registry at baseURL (for Apicurio, the
// ccompat root, e.g. http://host:8080/apis/ccompat/v7). Credentials in the
// URL (https://user:pass@host) are taken as basic auth and removed from the
// URL, so they never appear in messages. It fails when the URL is invalid
// or a TLS file cannot be loaded.
func NewClient(baseURL string, opts ...Opt) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("schema registry url %q: want http(s)://host[:port][/path]", redact.URL(baseURL))
	}
	c := &Client{timeout: DefaultTimeout, maxAnswer: DefaultMaxAnswerSize}
	if u.User != nil {
		c.user = u.User.Username()
		c.pass, _ = u.User.Password()
		u.User = nil
	}
	c.base = strings.TrimRight(u.String(), "/")
	for _, o := range opts {
		o(c)
	}
	if c.rt == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if c.tlsCfg != nil {
			cfg, err := c.tlsCfg.build()
			if err != nil {
				return nil, err
			}
			tr.TLSClientConfig = cfg
		}
		c.rt = tr
	}
	if c.wrap != nil {
		c.rt = c.wrap(c.rt)
	}
	if c.maxAnswer <= 0 {
		c.maxAnswer = DefaultMaxAnswerSize
	}
	return c, nil
}

func (t *TLSConfig) build() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipVerify}
	if t.CAFile != "" {
		pem, err := limitio.ReadFile(t.CAFile, 4<<20)
		if err != nil {
			return nil, fmt.Errorf("schema registry tls: ca file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("schema registry tls: ca file %s: no PEM certificate found", t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, fmt.Errorf("schema registry tls: give both a client certificate and its key")
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("schema registry tls: client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// URL is the registry's base URL, without credentials.
func (c *Client) URL() string { return c.base }

// call is the state of one client call: its context and the last error
// answer seen by the transport (srclient drops the status of non-JSON
// bodies, and hides it for JSON ones).
type call struct {
	ctx    context.Context
	status int
	body   []byte
	netErr error
	// the last request, and how it ended without an answer
	method, url string
	timedOut    time.Duration // the bound that expired, or 0
	tooLarge    bool
}

type callTransport struct {
	c    *Client
	call *call
}

func (t *callTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := t.call.ctx, context.CancelFunc(func() {})
	if t.c.reqTimeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, t.c.reqTimeout)
	}
	r := req.Clone(ctx)
	switch {
	case t.c.token != "":
		r.Header.Set("Authorization", "Bearer "+t.c.token)
	case t.c.user != "" || t.c.pass != "":
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(t.c.user+":"+t.c.pass)))
	}
	if t.c.userAgent != "" {
		r.Header.Set("User-Agent", t.c.userAgent)
	}
	if r.Header.Get("Accept") == "" {
		r.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json")
	}
	t.call.method, t.call.url = r.Method, r.URL.String()
	resp, err := t.c.rt.RoundTrip(r)
	if err != nil {
		t.noAnswer(ctx, err)
		cancel()
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		cancel()
		t.call.status, t.call.body = resp.StatusCode, data
		resp.Body = io.NopCloser(bytes.NewReader(data))
		return resp, nil
	}
	resp.Body = &answerBody{rc: resp.Body, left: t.c.maxAnswer, t: t, ctx: ctx, cancel: cancel}
	return resp, nil
}

// noAnswer records why a request got no (complete) answer.
func (t *callTransport) noAnswer(ctx context.Context, err error) {
	t.call.netErr = err
	switch {
	case errors.Is(t.call.ctx.Err(), context.DeadlineExceeded) && t.c.timeout > 0:
		t.call.timedOut = t.c.timeout
	case t.call.ctx.Err() != nil: // the caller's context
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		t.call.timedOut = t.c.reqTimeout
	}
}

// answerBody bounds the answer size and records read errors; Close ends
// the request's timeout.
type answerBody struct {
	rc     io.ReadCloser
	left   int64
	t      *callTransport
	ctx    context.Context
	cancel context.CancelFunc
}

func (b *answerBody) Read(p []byte) (int, error) {
	// Reading one byte past the limit tells a body of exactly the limit
	// from a larger one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		b.t.call.tooLarge = true
		return 0, ErrAnswerTooLarge
	}
	if err != nil && err != io.EOF {
		b.t.noAnswer(b.ctx, err)
	}
	return n, err
}

func (b *answerBody) Close() error {
	defer b.cancel()
	return b.rc.Close()
}

// begin starts a call: a context bounded by the client's timeout and an
// http.Client whose transport records the call's answers.
func (c *Client) begin(ctx context.Context) (*call, *http.Client, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	cancel := context.CancelFunc(func() {})
	if c.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	cl := &call{ctx: ctx}
	return cl, &http.Client{Transport: &callTransport{c: c, call: cl}}, cancel
}

// sr runs fn with a fresh srclient client for this call only: caching and
// codec creation are off, so no stale "latest", no shared *srclient.Schema
// and no Codec() race can reach callers; the call's answers are recorded
// to recover the HTTP status and the registry's error code.
func (c *Client) sr(ctx context.Context, op string, fn func(*srclient.SchemaRegistryClient) error) error {
	cl, hc, cancel := c.begin(ctx)
	defer cancel()
	s := srclient.NewSchemaRegistryClient(c.base, srclient.WithClient(hc), srclient.WithSemaphoreWeight(1))
	s.CachingEnabled(false)
	s.CodecCreationEnabled(false)
	err := fn(s)
	return c.mapErr(op, cl, err)
}

func (c *Client) mapErr(op string, cl *call, err error) error {
	if err == nil {
		return nil
	}
	if cl.status != 0 {
		return newAPIError(op, cl.status, cl.body)
	}
	if cl.tooLarge {
		return fmt.Errorf("%s: %s %s: %w: more than %d bytes", op, cl.method, redact.URL(cl.url), ErrAnswerTooLarge, c.maxAnswer)
	}
	if cl.timedOut > 0 {
		return fmt.Errorf("%s: %w", op, &TimeoutError{Method: cl.method, URL: cl.url, After: cl.timedOut})
	}
	if cl.netErr != nil {
		return fmt.Errorf("%s: %w", op, &UnreachableError{URL: c.base, Err: cl.netErr})
	}
	return fmt.Errorf("%s: %w: %v", op, ErrServer, err)
}

// rest is the net/http helper for what srclient cannot do. in is sent as
// JSON when non-nil; out is decoded from a 2xx JSON answer when non-nil.
func (c *Client) rest(ctx context.Context, op, method, path string, in, out any) error {
	cl, hc, cancel := c.begin(ctx)
	defer cancel()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(cl.ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return c.mapErr(op, cl, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newAPIError(op, cl.status, cl.body)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return c.mapErr(op, cl, err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s: %w: decode answer: %v", op, ErrServer, err)
		}
	}
	return nil
}
