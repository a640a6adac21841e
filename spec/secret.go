package spec

import (
	"fmt"
	"regexp"
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

// secretKeyParts mark a connector config key that holds a secret; keys
// ending in notSecretSuffixes name where a secret is, or its kind, not the
// secret (ssl.keystore.location, ssl.keystore.type, ….token.endpoint.url).
var (
	secretKeyParts    = []string{"password", "secret", "sasl.jaas.config", "ssl.key", "credentials", "token"}
	notSecretSuffixes = []string{".location", ".type", ".url", ".class", ".algorithm", ".provider"}
)

// IsSecretKey reports whether a connector config key holds a secret: its
// value is masked in every output, and a spec must give it as a reference
// (ParseSecret), never as a literal. It is the one list of secret keys
// (connectorconfig.IsSensitiveKey is this function).
func IsSecretKey(key string) bool {
	k := strings.ToLower(strings.TrimSpace(key))
	for _, s := range notSecretSuffixes {
		if strings.HasSuffix(k, s) {
			return false
		}
	}
	for _, s := range secretKeyParts {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// CheckSecretValue returns an error when value, of the secret key key
// (IsSecretKey), is a literal: it must be a reference (ParseSecret). A
// JAAS config (sasl.jaas.config) is a text of options: each of its
// password, secret and token options must be a quoted ${…} placeholder.
// The error never holds the value.
func CheckSecretValue(key, value string) error {
	if value == "" {
		return nil
	}
	if _, err := ParseSecret(value); err == nil {
		return nil
	}
	if strings.Contains(strings.ToLower(key), "sasl.jaas.config") {
		for _, m := range jaasSecretRE.FindAllStringSubmatch(value, -1) {
			if _, err := ParseSecret(m[2]); err != nil {
				return fmt.Errorf("%s: option %s must be a Kafka Connect config-provider placeholder such as ${file:/path:key}, not a literal", key, strings.TrimSpace(m[1]))
			}
		}
		return nil
	}
	return fmt.Errorf("%s is a secret: it must be a reference (${env:NAME}, ${file:PATH} or a Kafka Connect config-provider placeholder such as ${file:/path:key}), not a literal", key)
}

// jaasSecretRE finds the secret options of a JAAS config: password="…",
// clientSecret="…", token="…" (also unquoted).
var jaasSecretRE = regexp.MustCompile(`(?i)([a-z_.]*(?:password|secret|token))\s*=\s*"?([^"\s;]*)`)

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
