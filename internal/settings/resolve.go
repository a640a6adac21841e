package settings

// Source says which layer a resolved setting came from.
type Source string

// The layers of every setting, highest precedence first.
const (
	SourceFlag    Source = "flag"
	SourceEnv     Source = "environment"
	SourceContext Source = "context"
	SourceDefault Source = "default"
)

// Value is the candidates of one plain (not secret) setting. The one
// precedence of outboxctl, for every endpoint and option:
//
//	the flag > the canonical OUTBOXCTL_* variable > its OUTBOX_* aliases
//	(in table order) > the context file > the default.
//
// Empty fields are unset.
type Value struct {
	Flag    string // the flag's value
	Env     string // the variable's canonical name (or an alias), read with its aliases
	Context string // the context file's value
	Default string
}

// Resolve returns the value of v by the precedence above, and the layer it
// came from; from is the variable read (canonical or alias) for
// SourceEnv, else "". getenv is the process environment (os.Getenv in the
// CLI, a map in tests): the package never reads it itself. Conflicts lists
// the variables whose canonical name and alias differ, for the CLI's
// warning.
func Resolve(getenv func(string) string, v Value) (value string, src Source, from string) {
	if v.Flag != "" {
		return v.Flag, SourceFlag, ""
	}
	if v.Env != "" {
		if s, name := LookupEnv(getenv, v.Env); s != "" {
			return s, SourceEnv, name
		}
	}
	if v.Context != "" {
		return v.Context, SourceContext, ""
	}
	if v.Default != "" {
		return v.Default, SourceDefault, ""
	}
	return "", "", ""
}

// ResolveString is Resolve's value only.
func ResolveString(getenv func(string) string, v Value) string {
	s, _, _ := Resolve(getenv, v)
	return s
}
