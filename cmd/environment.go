package cmd

import (
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/internal/settings"
)

// The variables of the CLI are the table settings.Environment: each has a
// canonical OUTBOXCTL_* name and may have OUTBOX_* aliases. Every read of
// one of them in this package goes through lookupEnv; env.Getenv itself is
// only for other names (HOME, XDG_CONFIG_HOME, ${env:NAME} references).

// lookupEnv reads the variable name (canonical or alias): its value and the
// name it was read from, "" when unset.
func (env *Env) lookupEnv(name string) (value, from string) {
	return settings.LookupEnv(env.Getenv, name)
}

// getenv is the value of lookupEnv.
func (env *Env) getenv(name string) string {
	v, _ := env.lookupEnv(name)
	return v
}

// resolve is the value of v by the one precedence of every setting, flag >
// OUTBOXCTL_* > OUTBOX_* > context > default (settings.Resolve).
func (env *Env) resolve(v settings.Value) string { return settings.ResolveString(env.Getenv, v) }

// warnEnvConflicts prints one line on stderr for each variable whose
// canonical name and an alias are set to different values (the canonical
// one wins). Values are not printed: they may be secrets.
func (env *Env) warnEnvConflicts() {
	for _, c := range settings.Conflicts(env.Getenv) {
		fmt.Fprintf(env.IO.ErrOut, "outboxctl: warning: %s and its alias %s differ; using %s\n", c.Name, c.Alias, c.Name)
	}
}

// environmentHelp is `outboxctl help environment`.
func environmentHelp() string {
	var b strings.Builder
	b.WriteString(`Environment variables of outboxctl:

Each variable is the default of the flag named (flag > variable > context
file > default). The OUTBOX_* aliases of earlier releases keep working; when
a canonical name and its alias are both set, the canonical name wins.

`)
	for _, v := range settings.Environment {
		var notes []string
		if len(v.Aliases) > 0 {
			notes = append(notes, "alias "+strings.Join(v.Aliases, ", "))
		}
		if v.Flag != "" {
			notes = append(notes, "flag "+v.Flag)
		}
		line := "  " + v.Name
		if len(notes) > 0 {
			line += "  (" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(&b, "%s\n      %s\n", line, v.Meaning)
	}
	b.WriteString(`
Secrets (passwords, tokens) are read from the variables or files only; the
flags and the context file take references: env:NAME or file:PATH (also
written ${env:NAME}, ${file:PATH}), the same forms for every secret. For a
secret: the flag > the variable holding it (OUTBOXCTL_*_PASSWORD, _TOKEN) >
the variable naming its file (*_PASSWORD_FILE) > the context file.
`)
	return b.String()
}
