// Package redact masks credentials in text before it is printed: passwords
// in URLs (http://user:pw@host, postgres://…, jdbc:mysql://…), in JDBC
// values (jdbc:oracle:thin:user/pw@host, ;password=pw, ?password=pw) and
// in HTTP Authorization headers. It is the one place outboxctl masks
// credentials embedded in values; secrets held in config keys are masked by
// key (connectorconfig.IsSensitiveKey).
//
// The functions are pure and safe for concurrent use. They do not try to
// find secrets that are not marked by syntax (a bare password in free text
// is not recognised).
package redact

import (
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
)

// URL returns u with the password of its userinfo replaced by Mask
// ("http://user:pw@host" -> "http://user:********@host"). Anything that is
// not an absolute URL with credentials is returned as String(u) would.
func URL(u string) string {
	p, err := url.Parse(u)
	if err == nil && p.User != nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "MASKEDPASSWORD")
			return strings.Replace(String(p.String()), "MASKEDPASSWORD", Mask, 1)
		}
	}
	return String(u)
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
	return s
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
