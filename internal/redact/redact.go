// Package redact masks credentials in text before it is printed: passwords
// in URLs (http://user:pw@host, postgres://…, jdbc:mysql://…), in JDBC
// values (jdbc:oracle:thin:user/pw@host, ;password=pw, ?password=pw), in
// DSNs (libpq keyword form host=… password=pw, go-sql-driver form
// user:pw@tcp(host)/db), in JAAS configs (password="pw") and in HTTP
// Authorization headers. A URL that does not parse loses its user info
// lexically (URL, ParseURL), so an error never echoes it. It is the one place outboxctl masks
// credentials embedded in values; secrets held in config keys are masked by
// key (connectorconfig.IsSensitiveKey).
//
// The functions are pure and safe for concurrent use. They do not try to
// find secrets that are not marked by syntax (a bare password in free text
// is not recognised).
package redact

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces a credential.
const Mask = "********"

var (
	// scheme://user:password@ (user may be empty; the password runs to the
	// last @ before the path, so an unencoded @ in it is masked too)
	userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)([^/\s:@'"]*):([^\s/'"]+)@`)
	// jdbc:oracle:thin:user/password@host
	oracleRE = regexp.MustCompile(`(?i)(jdbc:oracle:[a-z0-9]+:)([^/@\s:'"]+)/([^@\s'"]+)@`)
	// ?password=…, &password=…, ;password=… (JDBC and DSN parameters)
	// (also with & escaped as \u0026, as JSON encoders write it)
	paramRE = regexp.MustCompile(`(?i)((?:[?&;]|\\u0026)(?:password|passwd|pwd|secret|token|access_token|sslpassword)=)([^&;\s'"\\]*)`)
	// libpq keyword DSN: password=pw, password = 'p w', sslpassword=…
	// (at the start or after white space or a quote)
	keywordRE = regexp.MustCompile(`(?i)((?:^|[\s"'])(?:password|sslpassword)\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s'"]+)`)
	// go-sql-driver DSN: user:pw@tcp(host)/db, user:pw@/db, user:pw@unix(…)
	// (the password runs to the last @ before the address, as the driver
	// reads it)
	mysqlRE = regexp.MustCompile(`((?:^|[\s"'=])[^\s:@/'"()]*):([^\s'"]*)@((?:tcp|tcp4|tcp6|udp|unix|pipe|memory)?\(|/)`)
	// JAAS options: password="pw", clientSecret="…", token="…"
	jaasRE = regexp.MustCompile(`(?i)(\b[a-z_.]*(?:password|secret|token)\s*=\s*)("[^"]*"?)`)
)

// URL returns u with the password of its userinfo replaced by Mask
// ("http://user:pw@host" -> "http://user:********@host"). A scheme://…@…
// URL that does not parse loses its whole user info lexically
// (StripUserinfo), whatever characters the password holds. Anything else is returned as String(u)
// would.
func URL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		if i := strings.Index(u, "://"); i >= 0 && strings.LastIndexByte(u, '@') > i {
			return String(StripUserinfo(u))
		}
		return String(u)
	}
	if p.Opaque != "" && strings.Contains(p.Opaque, "@") {
		// user:pw@host without "//" parses as scheme "user", opaque "pw@host"
		return String(StripUserinfo(u))
	}
	if p.User == nil {
		// http://bob:123/x@host parses as host bob:123 and path /x@host:
		// a colon before the last @ may be a password, mask it (a path
		// with @ after a port, http://host:8083/a@b, is masked too).
		if i := strings.Index(u, "://"); i >= 0 {
			if at := strings.LastIndexByte(u, '@'); at > i && strings.Contains(u[i+3:at], ":") {
				return String(StripUserinfo(u))
			}
		}
	}
	if p.User != nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "MASKEDPASSWORD")
			return strings.Replace(String(p.String()), "MASKEDPASSWORD", Mask, 1)
		}
	}
	return String(u)
}

// StripUserinfo replaces the user info of u with Mask without parsing it:
// everything from just after "scheme://" (or from the start, without a
// scheme) to the last '@' ("http://bob:p/w#x@host" -> "http://********@host").
// It is meant for text that does not parse as a URL, where the user info
// cannot be told apart from the path or the fragment; a string without '@'
// is returned unchanged.
func StripUserinfo(u string) string {
	at := strings.LastIndexByte(u, '@')
	if at < 0 {
		return u
	}
	start := 0
	if i := strings.Index(u, "://"); i >= 0 && i < at {
		start = i + len("://")
	}
	return u[:start] + Mask + u[at:]
}

// ErrBadURL is the sentinel of ParseURL's errors.
var ErrBadURL = errors.New("invalid URL")

// ParseURL is url.Parse whose error never holds the user info of raw: it
// names raw with its user info stripped (StripUserinfo) and, when only
// the user info is at fault, says so instead of quoting it. Errors wrap
// ErrBadURL.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err == nil {
		return u, nil
	}
	stripped := StripUserinfo(raw)
	reason := "invalid user info"
	if _, err2 := url.Parse(stripped); err2 != nil {
		reason = err2.Error()
		var ue *url.Error
		if errors.As(err2, &ue) {
			reason = ue.Err.Error()
		}
	}
	return nil, fmt.Errorf("%w %q: %s", ErrBadURL, String(stripped), reason)
}

// String masks every credential found in s: URL passwords, JDBC
// user/password pairs and password-like query or connection-string
// parameters. Text without credentials is returned unchanged.
func String(s string) string {
	if !strings.ContainsAny(s, "@=") {
		return s
	}
	s = userinfoRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := userinfoRE.FindStringSubmatch(m)
		if masked(sub[3]) || strings.HasPrefix(sub[3], "${") {
			return m
		}
		return sub[1] + sub[2] + ":" + Mask + "@"
	})
	s = oracleRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := oracleRE.FindStringSubmatch(m)
		if masked(sub[3]) {
			return m
		}
		return sub[1] + sub[2] + "/" + Mask + "@"
	})
	s = paramRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := paramRE.FindStringSubmatch(m)
		if sub[2] == "" || masked(sub[2]) || strings.HasPrefix(sub[2], "${") {
			return m
		}
		return sub[1] + Mask
	})
	s = keywordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := keywordRE.FindStringSubmatch(m)
		v := strings.Trim(sub[2], "'")
		if v == "" || masked(v) || isRef(v) {
			return m
		}
		return sub[1] + Mask
	})
	s = mysqlRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := mysqlRE.FindStringSubmatch(m)
		if sub[2] == "" || masked(sub[2]) || isRef(sub[2]) {
			return m
		}
		return sub[1] + ":" + Mask + "@" + sub[3]
	})
	s = jaasRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := jaasRE.FindStringSubmatch(m)
		v := strings.Trim(sub[2], `"`)
		if v == "" || masked(v) || isRef(v) {
			return m
		}
		return sub[1] + `"` + Mask + `"`
	})
	return s
}

// DSN masks the password of a whole database DSN in any of its forms: a
// URL (postgres://u:pw@host/db, as URL), libpq keywords (host=…
// password=pw, as String) or go-sql-driver (user:pw@tcp(host)/db). The
// go-sql-driver form is read as the driver reads it (the password runs
// from the first ':' to the last '@' before the last '/'), so it may hold
// any character, white space included.
func DSN(s string) string {
	if strings.Contains(s, "://") {
		return URL(s)
	}
	s = String(s)
	slash := strings.LastIndexByte(s, '/')
	if slash < 0 {
		return s
	}
	at := strings.LastIndexByte(s[:slash], '@')
	if at < 0 {
		return s
	}
	colon := strings.IndexByte(s[:at], ':')
	if colon < 0 || strings.ContainsAny(s[:colon], "= \t\n'\"") {
		return s
	}
	pw := s[colon+1 : at]
	if pw == "" || masked(pw) || isRef(pw) {
		return s
	}
	return s[:colon+1] + Mask + s[at:]
}

// isRef reports a reference that stands for a secret without holding it:
// ${env:…}, ${file:…} and Connect config-provider placeholders, or the
// env:NAME and file:PATH references of the context file.
func isRef(v string) bool {
	return strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") && strings.Count(v, "${") == 1
}

// HasSecret reports whether s holds a credential String or URL would mask
// (a literal password in a URL, a DSN, a JDBC value or a JAAS config).
func HasSecret(s string) bool {
	if String(s) != s || URL(s) != s || DSN(s) != s {
		return true
	}
	if p, err := url.Parse(s); err == nil && p.User != nil {
		pw, ok := p.User.Password()
		return ok && pw != "" && !masked(pw) && !isRef(pw)
	}
	return false
}

// masked reports a value that is already a mask (this package's, or the
// ones of plans and of Connect).
func masked(v string) bool {
	switch v {
	case Mask, "(sensitive)", "[hidden]", "<hidden>", "[redacted]":
		return true
	}
	return false
}

// Header returns the value of an HTTP header fit for output: Authorization,
// Proxy-Authorization, Cookie and similar headers keep only their scheme
// ("Basic ********"); other values go through String.
func Header(name, value string) string {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " " + Mask
		}
		return Mask
	case "cookie", "set-cookie", "x-api-key", "x-auth-token":
		return Mask
	}
	return String(value)
}
