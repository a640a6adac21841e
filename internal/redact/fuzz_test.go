package redact

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// skipPassword reports a fuzzed password the assertions cannot judge: too
// short to be told apart from the text around it, made of mask characters,
// a reference or a mask itself.
func skipPassword(pw string) bool {
	return len(pw) < 3 || strings.Contains(pw, "*") || isRef(pw) || masked(pw) || strings.Contains(pw, "${")
}

// once reports whether pw occurs exactly once in s (so an occurrence in
// the output is the password, not a part of the text around it).
func once(s, pw string) bool { return strings.Count(s, pw) == 1 }

// pgQuote writes pw as a libpq keyword value: bare, or single-quoted with
// \ and ' escaped.
func pgQuote(pw string) string {
	if pw != "" && !strings.ContainsAny(pw, " \t\n\r\f\v'\"\\") {
		return pw
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
}

// FuzzMask builds a DSN of each form (libpq keywords, go-sql-driver, URL)
// and a URL with raw user info around a fuzzed password, and checks that
// the password never appears in what DSN, String, URL and ParseURL return.
func FuzzMask(f *testing.F) {
	for _, s := range []string{"hunter2XYZ", "hun ter2XYZ", "hun/ter2XYZ", "hunter2XYZ#", "p@ss@word", "it's", `back\slash`,
		"a:b:c", "123/abc", "x?y=z", "%zz", "%41bc", "tab\tpw", "pw)/(x", "@tcp(", "日本語パス"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pw string) {
		if skipPassword(pw) {
			return
		}
		// libpq keyword DSN
		kw := "host=db user=u password=" + pgQuote(pw) + " dbname=x"
		if strings.ContainsAny(pw, "\n\r\f\v") {
			kw = ""
		}
		if kw != "" && once(kw, pw) {
			for name, out := range map[string]string{"DSN": DSN(kw), "String": String(kw)} {
				if strings.Contains(out, pw) {
					t.Fatalf("%s(%q) = %q holds the password", name, kw, out)
				}
			}
			if !HasSecret(kw) {
				t.Fatalf("HasSecret(%q) = false", kw)
			}
		}
		// go-sql-driver DSN, judged by the driver's own parser
		my := "root:" + pw + "@tcp(db:3306)/app?parseTime=true"
		if cfg, err := mysql.ParseDSN(my); err == nil && cfg.Passwd == pw && once(my, pw) {
			if out := DSN(my); strings.Contains(out, pw) {
				t.Fatalf("DSN(%q) = %q holds the password", my, out)
			}
			if !HasSecret(my) {
				t.Fatalf("HasSecret(%q) = false", my)
			}
		}
		// URL DSN, escaped as url.URL writes it
		u := (&url.URL{Scheme: "postgres", User: url.UserPassword("u", pw), Host: "db:5432", Path: "/x"}).String()
		esc := u[len("postgres://u:"):strings.LastIndexByte(u, '@')]
		if len(esc) >= 3 && once(u, esc) {
			for name, out := range map[string]string{"DSN": DSN(u), "URL": URL(u)} {
				if strings.Contains(out, esc) || (once(u, pw) && strings.Contains(out, pw)) {
					t.Fatalf("%s(%q) = %q holds the password", name, u, out)
				}
			}
		}
		// a raw URL that may not parse: its user info never comes back
		raw := "http://bob:" + pw + "@127.0.0.1:1/x"
		if !once(raw, pw) {
			return
		}
		p, perr := url.Parse(raw)
		secret := pw
		if perr == nil && p.User != nil {
			// it parses with other user info ("http://bob:@0/@h": the
			// password is empty, "@0/" is the path): judge what the client
			// would send
			secret, _ = p.User.Password()
		}
		if !skipPassword(secret) && once(raw, secret) {
			if out := URL(raw); strings.Contains(out, secret) {
				t.Fatalf("URL(%q) = %q holds the password", raw, out)
			}
		}
		if _, err := ParseURL(raw); err != nil {
			if strings.Contains(err.Error(), pw) {
				t.Fatalf("ParseURL(%q): error %q holds the password", raw, err)
			}
			if !errors.Is(err, ErrBadURL) {
				t.Fatalf("ParseURL(%q): %v does not wrap ErrBadURL", raw, err)
			}
		}
	})
}
