package settings

import (
	"errors"
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/internal/limitio"
)

// MaxSecretFileSize is the largest secret file a reference may name (1
// MiB): a secret is a password, a token or a DSN, never more. It equals
// spec.MaxSecretFileSize.
const MaxSecretFileSize = 1 << 20

// Sentinels of secret references; every error of ResolveRef and
// ResolveSecret is a [*SecretError] that unwraps to one of them.
var (
	// ErrSecretLiteral: a literal where a reference is required (flags
	// and the context file never hold a secret).
	ErrSecretLiteral = errors.New("secret is a literal, not a reference")
	// ErrSecretEnvUnset: an env: reference names an unset or empty
	// variable.
	ErrSecretEnvUnset = errors.New("secret variable not set")
	// ErrSecretFile: a file: reference (or a password file) cannot be
	// read: missing, unreadable, not a regular file or too large.
	ErrSecretFile = errors.New("secret file unreadable")
)

// SecretError is a secret that cannot be resolved. It names the setting
// (What) and the reference, never the secret: a literal is not repeated.
type SecretError struct {
	// What names the setting, e.g. "--kafka-sasl-password" or
	// "context file: registry password".
	What string
	// Ref is the reference as given (env:NAME, file:PATH, ${env:NAME},
	// ${file:PATH}); empty for a literal.
	Ref string
	// Kind is ErrSecretLiteral, ErrSecretEnvUnset or ErrSecretFile.
	Kind error
	// Name is the variable (ErrSecretEnvUnset) or the path (ErrSecretFile).
	Name string
	// Err is the file error (ErrSecretFile), which keeps fs.ErrNotExist,
	// limitio.ErrNotRegular and limitio.ErrTooLarge.
	Err error
}

func (e *SecretError) Error() string {
	switch e.Kind {
	case ErrSecretEnvUnset:
		return fmt.Sprintf("%s: environment variable %s is not set", e.What, e.Name)
	case ErrSecretFile:
		return fmt.Sprintf("%s file: %v", e.What, e.Err)
	}
	return fmt.Sprintf("%s must be a reference, env:NAME or file:PATH, not a literal", e.What)
}

// Unwrap returns Kind and, for a file, the file error.
func (e *SecretError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// ParseRef splits a secret reference into its kind ("env" or "file") and
// its variable name or path. The forms are env:NAME, file:PATH,
// ${env:NAME} and ${file:PATH}; anything else is no reference (ok false).
func ParseRef(v string) (kind, arg string, ok bool) {
	ref := v
	if strings.HasPrefix(ref, "${") && strings.HasSuffix(ref, "}") {
		ref = ref[2 : len(ref)-1]
	}
	for _, k := range []string{"env", "file"} {
		if a, found := strings.CutPrefix(ref, k+":"); found && a != "" {
			return k, a, true
		}
	}
	return "", "", false
}

// IsRef reports whether v is a secret reference (ParseRef).
func IsRef(v string) bool {
	_, _, ok := ParseRef(v)
	return ok
}

// ResolveRef returns the secret the reference ref stands for: the value of
// the variable (read through getenv as is, without aliases) or the content
// of the file (a regular file of at most MaxSecretFileSize bytes, trailing
// newlines trimmed). A literal, an unset variable and an unreadable file
// are a [*SecretError] naming what and the reference.
func ResolveRef(getenv func(string) string, ref, what string) (string, error) {
	kind, arg, ok := ParseRef(ref)
	if !ok {
		return "", &SecretError{What: what, Kind: ErrSecretLiteral}
	}
	if kind == "env" {
		if getenv != nil {
			if s := getenv(arg); s != "" {
				return s, nil
			}
		}
		return "", &SecretError{What: what, Ref: ref, Kind: ErrSecretEnvUnset, Name: arg}
	}
	return readSecretFile(arg, ref, what)
}

func readSecretFile(path, ref, what string) (string, error) {
	data, err := limitio.ReadFile(path, MaxSecretFileSize)
	if err != nil {
		return "", &SecretError{What: what, Ref: ref, Kind: ErrSecretFile, Name: path, Err: err}
	}
	return strings.TrimRight(string(data), "\r\n"), nil
}

// Secret is the candidates of one secret setting, in the one precedence
// of every secret (Connect, registry and Kafka passwords and tokens):
//
//	the flag (a reference, or a file path) > the variable holding the
//	secret > the variable holding a file path > the context's file path >
//	the context's reference > none.
//
// Empty fields are unset. Variables are read with their aliases
// (LookupEnv).
type Secret struct {
	// What names the secret in errors, e.g. "connect password".
	What string
	// FlagName and FlagRef: a flag that takes a reference (e.g.
	// --kafka-sasl-password env:PW).
	FlagName, FlagRef string
	// FlagFile: a flag that takes a file path (e.g. --connect-password-file).
	FlagFile string
	// Env is the variable holding the secret itself.
	Env string
	// EnvFile is the variable holding the path of a file with the secret.
	EnvFile string
	// ContextFile is a file path of the context file (Connect's
	// password-file, token-file).
	ContextFile string
	// ContextRef is a reference of the context file.
	ContextRef string
}

// ResolveSecret resolves s by its precedence. It returns "" when no
// candidate is set, and a [*SecretError] when the candidate that applies
// cannot be resolved (lower ones are not tried).
func ResolveSecret(getenv func(string) string, s Secret) (string, error) {
	switch {
	case s.FlagRef != "":
		return ResolveRef(getenv, s.FlagRef, s.FlagName)
	case s.FlagFile != "":
		return readSecretFile(s.FlagFile, "", s.What)
	}
	if v, _ := LookupEnv(getenv, s.Env); s.Env != "" && v != "" {
		return v, nil
	}
	if p, name := LookupEnv(getenv, s.EnvFile); s.EnvFile != "" && p != "" {
		return readSecretFile(p, "", "$"+name)
	}
	switch {
	case s.ContextFile != "":
		return readSecretFile(s.ContextFile, "", "context file: "+s.What)
	case s.ContextRef != "":
		return ResolveRef(getenv, s.ContextRef, "context file: "+s.What)
	}
	return "", nil
}

// File returns the path of the file ResolveSecret reads for s, "" when the
// secret that applies is not a file (a variable, a reference, none). The
// CLI shows it (context show); it reads nothing.
func (s Secret) File(getenv func(string) string) string {
	switch {
	case s.FlagRef != "":
		if kind, arg, _ := ParseRef(s.FlagRef); kind == "file" {
			return arg
		}
		return ""
	case s.FlagFile != "":
		return s.FlagFile
	}
	if v, _ := LookupEnv(getenv, s.Env); s.Env != "" && v != "" {
		return ""
	}
	if p, _ := LookupEnv(getenv, s.EnvFile); s.EnvFile != "" && p != "" {
		return p
	}
	if s.ContextFile != "" {
		return s.ContextFile
	}
	if kind, arg, _ := ParseRef(s.ContextRef); kind == "file" {
		return arg
	}
	return ""
}
