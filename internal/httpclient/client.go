package httpclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/outboxctl/outboxctl/internal/limitio"
)

// Auth are the credentials of a client: a bearer token, else HTTP basic
// authentication, else none.
type Auth struct {
	User, Password string
	Token          string
}

// Set sets the Authorization header of h: "Bearer Token" when Token is
// set, else basic credentials when User or Password is set.
func (a Auth) Set(h http.Header) {
	switch {
	case a.Token != "":
		h.Set("Authorization", "Bearer "+a.Token)
	case a.User != "" || a.Password != "":
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(a.User+":"+a.Password)))
	}
}

// MaxPEMFile bounds a CA bundle read.
const MaxPEMFile = 4 << 20

// TLSFiles are the TLS files of a connection. Empty fields keep Go's
// defaults (system roots, no client certificate).
type TLSFiles struct {
	// CAFile is a PEM bundle of the CAs to trust, added to no others.
	CAFile string
	// CertFile and KeyFile are the client certificate and key (PEM), for
	// mutual TLS; both or neither.
	CertFile, KeyFile string
	// InsecureSkipVerify disables server certificate verification.
	InsecureSkipVerify bool
}

// Config loads the files into a TLS configuration (TLS 1.2 at least).
// Errors start with what (e.g. "kafka connect tls") and name the file.
func (t TLSFiles) Config(what string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // explicit user choice
	if t.CAFile != "" {
		pem, err := limitio.ReadFile(t.CAFile, MaxPEMFile)
		if err != nil {
			return nil, fmt.Errorf("%s: ca file: %w", what, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: ca file %s: no PEM certificate found", what, t.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, fmt.Errorf("%s: give both a client certificate and its key", what)
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("%s: client certificate: %w", what, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// TLS is the TLS option of a client: a ready configuration (WithTLSConfig)
// wins over files (WithTLS).
type TLS struct {
	Config *tls.Config
	Files  *TLSFiles
}

// Build returns Config, else the configuration loaded from Files (errors
// start with what), else nil (Go's defaults).
func (t TLS) Build(what string) (*tls.Config, error) {
	if t.Config != nil || t.Files == nil {
		return t.Config, nil
	}
	return t.Files.Config(what)
}

// Sender is how a client sends its requests, from its options:
//
//   - Client (WithHTTPClient): requests go through a copy of it, with its
//     Timeout, redirect policy and cookie jar, and its Transport
//     (http.DefaultTransport when nil);
//   - Transport (WithTransport): the transport, winning over Client's;
//   - TLS (WithTLS, WithTLSConfig): the TLS configuration of the default
//     transport, a clone of http.DefaultTransport; ignored when Client or
//     Transport gives the transport;
//   - Wrap (WithTransportWrapper): wraps the transport, whichever it is.
type Sender struct {
	Client    *http.Client
	Transport http.RoundTripper
	TLS       TLS
	Wrap      func(http.RoundTripper) http.RoundTripper
}

// Build returns the HTTP client a client sends with (a new one, never
// s.Client itself); errors of the TLS files start with what.
func (s Sender) Build(what string) (*http.Client, error) {
	hc := &http.Client{}
	if s.Client != nil {
		*hc = *s.Client
	}
	rt := s.Transport
	if rt == nil && s.Client != nil {
		rt = s.Client.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
	}
	if rt == nil {
		cfg, err := s.TLS.Build(what)
		if err != nil {
			return nil, err
		}
		rt = Transport(cfg)
	}
	if s.Wrap != nil {
		rt = s.Wrap(rt)
	}
	hc.Transport = rt
	return hc, nil
}

// Transport is a clone of http.DefaultTransport with cfg as its TLS
// configuration (when non-nil).
func Transport(cfg *tls.Config) http.RoundTripper {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg != nil {
		tr.TLSClientConfig = cfg
	}
	return tr
}

// Bounds are the timeouts of a client: of a whole call (every request and
// retry of it) and of each request; 0 is none.
type Bounds struct {
	Call, Request time.Duration
}

// WithBound returns ctx bounded by d (ctx itself, and a no-op cancel, when
// d is 0).
func WithBound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

// Expired says which bound of the client ended a request that got no
// (complete) answer with err: b.Call when the call's context (derived from
// the caller's with b.Call) expired, b.Request when the request's did, the
// time since start for a network timeout (a dial or TLS handshake timeout
// of the transport), and 0 when none did: then the caller's own context
// ended, or the server is unreachable.
func Expired(caller, call, req context.Context, b Bounds, start time.Time, err error) time.Duration {
	switch {
	case caller.Err() != nil:
		return 0
	case b.Call > 0 && errors.Is(call.Err(), context.DeadlineExceeded):
		return b.Call
	case b.Request > 0 && errors.Is(req.Err(), context.DeadlineExceeded):
		return b.Request
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return time.Since(start).Round(time.Millisecond)
	}
	return 0
}
