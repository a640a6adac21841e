package spec

import (
	"fmt"
	"strings"
)

// SecretKind says how a secret reference is resolved.
type SecretKind int

const (
	// SecretEnv is ${env:NAME}: an environment variable, resolved at
	// generate time.
	SecretEnv SecretKind = iota + 1
	// SecretFile is ${file:PATH}: the content of a file (trailing newline
	// trimmed), resolved at generate time.
	SecretFile
	// SecretProvider is a Kafka Connect config-provider placeholder such as
	// ${file:/opt/secrets.properties:pg.password} or ${secrets:db/pg:password}:
	// passed to Connect untouched.
	SecretProvider
)

// Secret is a parsed secret reference.
type Secret struct {
	Kind SecretKind
	// Ref is NAME (env), PATH (file) or the whole placeholder (provider).
	Ref string
	// Raw is the reference as written.
	Raw string
}

// ParseSecret parses a secret reference. A literal value is an error: specs
// never hold secrets.
func ParseSecret(v string) (Secret, error) {
	if !strings.HasPrefix(v, "${") || !strings.HasSuffix(v, "}") || strings.Count(v, "${") != 1 {
		return Secret{}, fmt.Errorf("password must be a reference (${env:NAME}, ${file:PATH} or a Kafka Connect config-provider placeholder such as ${file:/path:key}), not a literal")
	}
	body := v[2 : len(v)-1]
	provider, rest, ok := strings.Cut(body, ":")
	if !ok || provider == "" || rest == "" {
		return Secret{}, fmt.Errorf("secret reference %q: want ${provider:[path:]key}", v)
	}
	switch {
	case provider == "env" && !strings.Contains(rest, ":"):
		return Secret{Kind: SecretEnv, Ref: rest, Raw: v}, nil
	case provider == "file" && !strings.Contains(rest, ":"):
		return Secret{Kind: SecretFile, Ref: rest, Raw: v}, nil
	default:
		return Secret{Kind: SecretProvider, Ref: v, Raw: v}, nil
	}
}

// MaxSecretFileSize is the largest secret file ReadSecretFile reads and
// Resolve accepts (1 MiB): a secret is a password or a key, never more.
const MaxSecretFileSize = 1 << 20

// ReadSecretFile reads the secret file path, for Lookup.ReadFile and other
// secret files (passwords, tokens): it must be a regular file (not a
// device such as /dev/zero, a FIFO or a directory) of at most
// MaxSecretFileSize bytes. Special files are refused before they are
// opened, so a FIFO does not block.
func ReadSecretFile(path string) ([]byte, error) {
	return ReadFileLimit(path, MaxSecretFileSize)
}

// Lookup resolves ${env:…} and ${file:…} references. The library never reads
// the process environment itself: the CLI passes os.LookupEnv and
// ReadSecretFile, tests pass maps.
type Lookup struct {
	Env      func(name string) (string, bool)
	ReadFile func(path string) ([]byte, error)
}

// Resolve returns the value a secret reference stands for: the variable or
// file content for ${env:…}/${file:…}, the placeholder itself for Connect
// config providers. Errors wrap ErrSecretUnresolved and never contain the
// secret.
func (l Lookup) Resolve(ref string) (string, error) {
	s, err := ParseSecret(ref)
	if err != nil {
		return "", err
	}
	switch s.Kind {
	case SecretEnv:
		if l.Env == nil {
			return "", fmt.Errorf("%s: no environment lookup: %w", ref, ErrSecretUnresolved)
		}
		v, ok := l.Env(s.Ref)
		if !ok || v == "" {
			return "", fmt.Errorf("%s: environment variable %s is not set: %w", ref, s.Ref, ErrSecretUnresolved)
		}
		return v, nil
	case SecretFile:
		if l.ReadFile == nil {
			return "", fmt.Errorf("%s: no file lookup: %w", ref, ErrSecretUnresolved)
		}
		b, err := l.ReadFile(s.Ref)
		if err != nil {
			return "", fmt.Errorf("%s: %v: %w", ref, err, ErrSecretUnresolved)
		}
		if len(b) > MaxSecretFileSize {
			return "", fmt.Errorf("%s: file is larger than %d bytes: %w", ref, MaxSecretFileSize, ErrSecretUnresolved)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return s.Ref, nil
}
