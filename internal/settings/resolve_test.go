package settings_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/limitio"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestResolvePrecedence: flag > OUTBOXCTL_* > OUTBOX_* > context >
// default, for every setting, and where the value came from.
func TestResolvePrecedence(t *testing.T) {
	const canon, alias = settings.EnvConnectURL, "OUTBOX_CONNECT_URL"
	all := settings.Value{Flag: "flag", Env: canon, Context: "ctx", Default: "def"}
	for _, tc := range []struct {
		name  string
		env   map[string]string
		v     settings.Value
		want  string
		src   settings.Source
		from  string
		warns []settings.EnvConflict
	}{
		{"flag beats all", map[string]string{canon: "canon", alias: "alias"}, all, "flag", settings.SourceFlag, "", []settings.EnvConflict{{Name: canon, Alias: alias}}},
		{"canonical variable beats its alias", map[string]string{canon: "canon", alias: "alias"}, noFlag(all), "canon", settings.SourceEnv, canon, []settings.EnvConflict{{Name: canon, Alias: alias}}},
		{"equal values are no conflict", map[string]string{canon: "same", alias: "same"}, noFlag(all), "same", settings.SourceEnv, canon, nil},
		{"alias when the canonical is unset", map[string]string{alias: "alias"}, noFlag(all), "alias", settings.SourceEnv, alias, nil},
		{"alias when the canonical is empty", map[string]string{canon: "", alias: "alias"}, noFlag(all), "alias", settings.SourceEnv, alias, nil},
		{"an alias named in the table reads the canonical", map[string]string{canon: "canon"}, settings.Value{Env: alias}, "canon", settings.SourceEnv, canon, nil},
		{"context when no variable", nil, noFlag(all), "ctx", settings.SourceContext, "", nil},
		{"default last", nil, settings.Value{Env: canon, Default: "def"}, "def", settings.SourceDefault, "", nil},
		{"nothing", nil, settings.Value{Env: canon}, "", "", "", nil},
		{"a name outside the table is read as is", map[string]string{"OTHER": "o"}, settings.Value{Env: "OTHER", Default: "def"}, "o", settings.SourceEnv, "OTHER", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, src, from := settings.Resolve(mapEnv(tc.env), tc.v)
			if got != tc.want || src != tc.src || from != tc.from {
				t.Errorf("Resolve = %q, %q, %q; want %q, %q, %q", got, src, from, tc.want, tc.src, tc.from)
			}
			if s := settings.ResolveString(mapEnv(tc.env), tc.v); s != tc.want {
				t.Errorf("ResolveString = %q, want %q", s, tc.want)
			}
			if w := settings.Conflicts(mapEnv(tc.env)); !reflect.DeepEqual(w, tc.warns) {
				t.Errorf("Conflicts = %v, want %v", w, tc.warns)
			}
		})
	}
}

func noFlag(v settings.Value) settings.Value { v.Flag = ""; return v }

// TestResolveRef: every form of a secret reference, and errors that name
// the setting and the reference but never a literal.
func TestResolveRef(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("from-file\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, settings.MaxSecretFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	env := mapEnv(map[string]string{"PW": "from-env"})
	for _, tc := range []struct {
		ref, want string
		kind      error
		is        error
		msg       string
	}{
		{ref: "env:PW", want: "from-env"},
		{ref: "${env:PW}", want: "from-env"},
		{ref: "file:" + file, want: "from-file"},
		{ref: "${file:" + file + "}", want: "from-file"},
		{ref: "env:UNSET", kind: settings.ErrSecretEnvUnset, msg: "pw: environment variable UNSET is not set"},
		{ref: "${env:UNSET}", kind: settings.ErrSecretEnvUnset, msg: "pw: environment variable UNSET is not set"},
		{ref: "file:" + file + ".missing", kind: settings.ErrSecretFile, is: fs.ErrNotExist, msg: "pw file: stat " + file + ".missing"},
		{ref: "file:" + dir, kind: settings.ErrSecretFile, is: limitio.ErrNotRegular, msg: "pw file: " + dir + " is not a regular file but a directory"},
		{ref: "file:" + big, kind: settings.ErrSecretFile, is: limitio.ErrTooLarge, msg: "pw file: " + big},
		{ref: "hunter2", kind: settings.ErrSecretLiteral, msg: "pw must be a reference, env:NAME or file:PATH, not a literal"},
		{ref: "env:", kind: settings.ErrSecretLiteral, msg: "not a literal"},
		{ref: "${vault:x}", kind: settings.ErrSecretLiteral, msg: "not a literal"},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			got, err := settings.ResolveRef(env, tc.ref, "pw")
			if tc.kind == nil {
				if err != nil || got != tc.want {
					t.Fatalf("= %q, %v; want %q", got, err, tc.want)
				}
				if !settings.IsRef(tc.ref) {
					t.Errorf("IsRef = false")
				}
				return
			}
			var se *settings.SecretError
			if !errors.As(err, &se) || !errors.Is(err, tc.kind) || got != "" {
				t.Fatalf("= %q, %v; want a *SecretError wrapping %v", got, err, tc.kind)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v does not wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "from-") {
				t.Errorf("error shows a secret: %v", err)
			}
		})
	}
}

// TestResolveSecretPrecedence: flag > variable > variable's file >
// context file > context reference, the same for every secret; aliases
// apply; the first candidate set decides (an error is not skipped).
func TestResolveSecretPrecedence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, v string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flagFile, envFile, ctxFile := write("flag", "flag-file"), write("env", "env-file"), write("ctx", "ctx-file")
	full := settings.Secret{
		What: "kafka sasl-password", FlagName: "--kafka-sasl-password", FlagRef: "env:FLAG_PW",
		Env: settings.EnvKafkaSASLPassword, EnvFile: settings.EnvKafkaSASLPasswordFile,
		ContextFile: ctxFile, ContextRef: "env:CTX_PW",
	}
	base := map[string]string{
		"FLAG_PW": "flag-ref", "CTX_PW": "ctx-ref",
		settings.EnvKafkaSASLPassword: "env-value", settings.EnvKafkaSASLPasswordFile: envFile,
	}
	without := func(keys ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for _, k := range keys {
			delete(m, k)
		}
		return m
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		s    func(settings.Secret) settings.Secret
		want string
		err  string
	}{
		{"flag reference first", base, func(s settings.Secret) settings.Secret { return s }, "flag-ref", ""},
		{"flag file", base, func(s settings.Secret) settings.Secret { s.FlagRef, s.FlagFile = "", flagFile; return s }, "flag-file", ""},
		{"variable", base, func(s settings.Secret) settings.Secret { s.FlagRef = ""; return s }, "env-value", ""},
		{"variable by its alias", map[string]string{"OUTBOX_KAFKA_SASL_PASSWORD": "alias-value"}, func(s settings.Secret) settings.Secret { s.FlagRef = ""; return s }, "alias-value", ""},
		{"variable's file", without(settings.EnvKafkaSASLPassword), func(s settings.Secret) settings.Secret { s.FlagRef = ""; return s }, "env-file", ""},
		{"context file", without(settings.EnvKafkaSASLPassword, settings.EnvKafkaSASLPasswordFile), func(s settings.Secret) settings.Secret { s.FlagRef = ""; return s }, "ctx-file", ""},
		{"context reference", without(settings.EnvKafkaSASLPassword, settings.EnvKafkaSASLPasswordFile), func(s settings.Secret) settings.Secret { s.FlagRef, s.ContextFile = "", ""; return s }, "ctx-ref", ""},
		{"none", nil, func(s settings.Secret) settings.Secret { return settings.Secret{What: s.What} }, "", ""},
		{"flag literal refused", base, func(s settings.Secret) settings.Secret { s.FlagRef = "hunter2"; return s }, "", "--kafka-sasl-password must be a reference, env:NAME or file:PATH, not a literal"},
		{"flag reference unset", without("FLAG_PW"), func(s settings.Secret) settings.Secret { return s }, "", "--kafka-sasl-password: environment variable FLAG_PW is not set"},
		{"flag file missing", base, func(s settings.Secret) settings.Secret { s.FlagRef, s.FlagFile = "", flagFile+".x"; return s }, "", "kafka sasl-password file: stat " + flagFile + ".x"},
		{"variable's file missing names the variable", map[string]string{"OUTBOX_KAFKA_SASL_PASSWORD_FILE": "/nonexistent/pw"}, func(s settings.Secret) settings.Secret { s.FlagRef = ""; return s }, "", "$OUTBOX_KAFKA_SASL_PASSWORD_FILE file: stat /nonexistent/pw"},
		{"context reference unset", nil, func(s settings.Secret) settings.Secret { s.FlagRef, s.ContextFile = "", ""; return s }, "", "context file: kafka sasl-password: environment variable CTX_PW is not set"},
		{"context literal refused", nil, func(s settings.Secret) settings.Secret {
			s.FlagRef, s.ContextFile, s.ContextRef = "", "", "hunter2"
			return s
		}, "", "context file: kafka sasl-password must be a reference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := settings.ResolveSecret(mapEnv(tc.env), tc.s(full))
			if tc.err != "" {
				var se *settings.SecretError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("= %q, %v; want a *SecretError containing %q", got, err, tc.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("error shows the literal: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("= %q, %v; want %q", got, err, tc.want)
			}
			if f, want := tc.s(full).File(mapEnv(tc.env)), strings.TrimSuffix(tc.want, "-file"); (f != "") != (want != tc.want) || (f != "" && filepath.Base(f) != want) {
				t.Errorf("File = %q; want the file of %q", f, tc.want)
			}
		})
	}
}

// TestMaxSecretFileSizeIsSpecs: a secret file has one bound, whether a
// spec's ${file:…} or a CLI reference names it (spec may import nothing
// but internal/limitio, so the constant is repeated and pinned here).
func TestMaxSecretFileSizeIsSpecs(t *testing.T) {
	if settings.MaxSecretFileSize != spec.MaxSecretFileSize {
		t.Errorf("settings.MaxSecretFileSize = %d, spec.MaxSecretFileSize = %d", settings.MaxSecretFileSize, spec.MaxSecretFileSize)
	}
}
