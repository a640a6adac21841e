package cmd

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/outboxctl/outboxctl/internal/settings"
)

// TestEnvNamesInTable scans the non-test Go files of cmd for OUTBOX_* and
// OUTBOXCTL_* names: every one in a string literal or a comment must be a
// variable of settings.Environment (a name followed by * a prefix of one),
// and the string literals (help texts, messages) must use the canonical
// name, not an alias. No table variable is read with Getenv directly.
func TestEnvNamesInTable(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	nameRe := regexp.MustCompile(`OUTBOX(?:CTL)?_[A-Z0-9_]*\*?`)
	known := func(n string) (canonical, ok bool) {
		if p, wild := strings.CutSuffix(n, "*"); wild {
			for _, v := range settings.Environment {
				if strings.HasPrefix(v.Name, p) {
					return true, true
				}
				for _, a := range v.Aliases {
					if strings.HasPrefix(a, p) {
						return false, true
					}
				}
			}
			return false, false
		}
		v, ok := settings.LookupVar(n)
		return ok && v.Name == n, ok
	}
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		check := func(pos token.Pos, text string, literal bool) {
			for _, n := range nameRe.FindAllString(text, -1) {
				seen++
				canonical, ok := known(n)
				switch {
				case !ok:
					t.Errorf("%s: %s is not in settings.Environment (canonical or alias)", fset.Position(pos), n)
				case literal && !canonical && !strings.HasSuffix(n, "*"):
					t.Errorf("%s: %s is an alias; name the canonical variable", fset.Position(pos), n)
				}
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			// A variable of the table is read through env.lookupEnv or
			// env.getenv (aliases); env.Getenv is for other names only.
			if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 1 {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Getenv" {
					var arg string
					switch a := call.Args[0].(type) {
					case *ast.Ident:
						arg = a.Name
					case *ast.SelectorExpr:
						arg = a.Sel.Name
					}
					if strings.HasPrefix(arg, "env") || strings.HasPrefix(arg, "Env") {
						t.Errorf("%s: Getenv(%s) bypasses the aliases: use env.getenv or env.lookupEnv", fset.Position(call.Pos()), arg)
					}
				}
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
				}
				check(lit.Pos(), s, true)
			}
			return true
		})
		for _, cg := range file.Comments {
			check(cg.Pos(), cg.Text(), false)
		}
	}
	if seen < 20 {
		t.Fatalf("found %d variable names in cmd, want at least 20: is the scan broken?", seen)
	}
}

// TestEnvTableFlagsExist: the flag each variable stands for is a flag of
// some command.
func TestEnvTableFlagsExist(t *testing.T) {
	var buf bytes.Buffer
	root := NewRootCmd(&Env{IO: IOStreams{In: &buf, Out: &buf, ErrOut: &buf}, Getenv: func(string) string { return "" }})
	flags := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { flags["--"+f.Name] = true })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, v := range settings.Environment {
		if v.Flag != "" && !flags[v.Flag] {
			t.Errorf("%s: flag %s is no flag of any command", v.Name, v.Flag)
		}
	}
}

// TestEnvPrecedence: flag > canonical variable > alias > context > default,
// for the Connect URL and the Kafka bootstrap servers; a conflict between a
// canonical name and its alias is one warning line naming both.
func TestEnvPrecedence(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "outboxctl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "outboxctl", "config.yaml"), []byte(`current-context: a
contexts:
  a: {connect: {url: "http://ctx:1"}, kafka: {bootstrap-servers: "ctx:9092"}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	const (
		urlNew, urlOld = settings.EnvConnectURL, "OUTBOX_CONNECT_URL"
		bsNew, bsOld   = settings.EnvBootstrapServers, "OUTBOX_BOOTSTRAP_SERVERS"
	)
	cases := []struct {
		name           string
		vars           map[string]string
		flag           string
		want, wantWarn string
	}{
		{"context", nil, "", "ctx", ""},
		{"alias over context", map[string]string{urlOld: "http://old:1", bsOld: "old:9092"}, "", "old", ""},
		{"canonical over context", map[string]string{urlNew: "http://new:1", bsNew: "new:9092"}, "", "new", ""},
		{"canonical over alias", map[string]string{urlNew: "http://new:1", urlOld: "http://old:1", bsNew: "new:9092", bsOld: "old:9092"}, "", "new",
			"outboxctl: warning: " + urlNew + " and its alias " + urlOld + " differ; using " + urlNew + "\n" +
				"outboxctl: warning: " + bsNew + " and its alias " + bsOld + " differ; using " + bsNew + "\n"},
		{"both equal: no warning", map[string]string{urlNew: "http://new:1", urlOld: "http://new:1", bsNew: "new:9092", bsOld: "new:9092"}, "", "new", ""},
		{"flag over both", map[string]string{urlNew: "http://new:1", urlOld: "http://old:1", bsNew: "new:9092", bsOld: "old:9092"}, "flag", "flag",
			"outboxctl: warning: " + urlNew + " and its alias " + urlOld + " differ; using " + urlNew + "\n" +
				"outboxctl: warning: " + bsNew + " and its alias " + bsOld + " differ; using " + bsNew + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"XDG_CONFIG_HOME": dir}
			for k, v := range tc.vars {
				vars[k] = v
			}
			env := testEnv(vars)
			var errOut bytes.Buffer
			env.IO.ErrOut = &errOut
			var f connectFlags
			bootstrapFlag := ""
			if tc.flag != "" {
				f.URL, bootstrapFlag = "http://"+tc.flag+":1", tc.flag+":9092"
			}
			ep, err := resolveEndpoint(env, &f)
			if err != nil {
				t.Fatal(err)
			}
			if want := "http://" + tc.want + ":1"; ep.URL != want {
				t.Errorf("connect url = %s, want %s", ep.URL, want)
			}
			kc, err := env.kafkaConfig(nil, bootstrapFlag)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.want + ":9092"; kc.BootstrapServers != want {
				t.Errorf("bootstrap servers = %s, want %s", kc.BootstrapServers, want)
			}
			env.warnEnvConflicts()
			if errOut.String() != tc.wantWarn {
				t.Errorf("stderr = %q, want %q", errOut.String(), tc.wantWarn)
			}
		})
	}
}

// TestEnvAliasNamedInErrors: a bad value read from an alias is reported
// under the name the user set.
func TestEnvAliasNamedInErrors(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"OUTBOX_KAFKA_CONFIG": "novalue"}, `$OUTBOX_KAFKA_CONFIG "novalue": want KEY=VALUE`},
		{map[string]string{settings.EnvKafkaConfig: "novalue"}, `$OUTBOXCTL_KAFKA_CONFIG "novalue": want KEY=VALUE`},
		{map[string]string{"OUTBOX_KAFKA_SASL_PASSWORD_FILE": "/nonexistent/pw"}, `$OUTBOX_KAFKA_SASL_PASSWORD_FILE file:`},
	} {
		vars := map[string]string{"XDG_CONFIG_HOME": t.TempDir()}
		for k, v := range tc.vars {
			vars[k] = v
		}
		_, err := testEnv(vars).kafkaConfig(nil, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to contain %q", tc.vars, err, tc.want)
		}
	}
}

// TestHelpEnvironment: the topic lists every variable with its aliases and
// its meaning.
func TestHelpEnvironment(t *testing.T) {
	var out bytes.Buffer
	env := &Env{IO: IOStreams{In: &out, Out: &out, ErrOut: &out}, Getenv: func(string) string { return "" }}
	root := NewRootCmd(env)
	root.SetArgs([]string{"help", "environment"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, v := range settings.Environment {
		i := strings.Index(text, "  "+v.Name+"  ")
		if i < 0 {
			i = strings.Index(text, "  "+v.Name+"\n")
		}
		if i < 0 {
			t.Errorf("help environment lacks %s", v.Name)
			continue
		}
		entry := text[i:]
		j := strings.Index(entry, "\n      "+v.Meaning+"\n")
		if j < 0 {
			t.Errorf("help environment: %s lacks its meaning %q", v.Name, v.Meaning)
			continue
		}
		entry = entry[:j]
		for _, a := range v.Aliases {
			if !strings.Contains(entry, a) {
				t.Errorf("help environment: %s lacks its alias %s", v.Name, a)
			}
		}
		if v.Flag != "" && !strings.Contains(entry, "flag "+v.Flag) {
			t.Errorf("help environment: %s lacks its flag %s", v.Name, v.Flag)
		}
	}
}
