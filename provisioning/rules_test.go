package provisioning

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var ruleIDPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)

// TestRulesRegistry: Rules and the code are in step. Every rule ID the code
// reports (the first argument of the findings' add, an ID* constant or a
// literal) is in the registry, every registry ID is reported somewhere, and
// every entry is complete.
func TestRulesRegistry(t *testing.T) {
	consts, used, sevs := scanRuleIDs(t)
	inRegistry := map[string]bool{}
	for _, r := range Rules {
		if inRegistry[r.ID] {
			t.Errorf("%s: twice in Rules", r.ID)
		}
		inRegistry[r.ID] = true
		if !ruleIDPattern.MatchString(r.ID) {
			t.Errorf("%s: not SCREAMING_SNAKE", r.ID)
		}
		if r.Purpose == "" {
			t.Errorf("%s: no purpose", r.ID)
		}
		switch r.Severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			t.Errorf("%s: severity %q", r.ID, r.Severity)
		}
		if r.Hint == "" && r.Severity != SeverityInfo {
			t.Errorf("%s: a %s rule without a fix", r.ID, r.Severity)
		}
		if !used[r.ID] {
			t.Errorf("%s: in Rules, but no code reports it", r.ID)
		}
		// The registry's severity is the most severe the code reports; where
		// the code picks it at run time ("sev"), at least the fixed ones.
		most, picked := Severity(""), false
		for _, s := range sevs[r.ID] {
			if s == "sev" {
				picked = true
				continue
			}
			if most == "" || s.AtLeast(most) {
				most = s
			}
		}
		switch {
		case picked && most != "" && !r.Severity.AtLeast(most):
			t.Errorf("%s: severity %s in Rules, the code reports %s", r.ID, r.Severity, most)
		case !picked && most != r.Severity:
			t.Errorf("%s: severity %s in Rules, the code reports at most %s", r.ID, r.Severity, most)
		}
	}
	for id := range used {
		if !inRegistry[id] {
			t.Errorf("%s: reported by the code, but not in Rules", id)
		}
	}
	for name, id := range consts {
		if !inRegistry[id] {
			t.Errorf("%s = %q: a rule ID constant not in Rules", name, id)
		}
	}
	if len(used) < 50 {
		t.Errorf("found only %d rule IDs in the code: the scan is broken", len(used))
	}
}

// scanRuleIDs parses the package's non-test files: the ID* string
// constants, and the rule IDs passed to the findings' add.
func scanRuleIDs(t *testing.T) (consts map[string]string, used map[string]bool, sevs map[string][]Severity) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	consts = map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "ID") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						consts[n.Name] = v
					}
				}
			}
		}
	}
	used = map[string]bool{}
	sevs = map[string][]Severity{}
	sevOf := map[string]Severity{"SeverityError": SeverityError, "SeverityWarning": SeverityWarning, "SeverityInfo": SeverityInfo, "sev": "sev"}
	var unresolved []string
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 5 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "add" {
				return true
			}
			// The findings' add takes a severity second (the planner's
			// add of steps does not).
			sev, ok := call.Args[1].(*ast.Ident)
			if !ok || (sev.Name != "sev" && !strings.HasPrefix(sev.Name, "Severity")) {
				return true
			}
			switch a := call.Args[0].(type) {
			case *ast.BasicLit:
				v, _ := strconv.Unquote(a.Value)
				used[v] = true
				sevs[v] = append(sevs[v], sevOf[sev.Name])
			case *ast.Ident:
				if v, ok := consts[a.Name]; ok {
					used[v] = true
					sevs[v] = append(sevs[v], sevOf[sev.Name])
				} else if a.Name != "id" {
					unresolved = append(unresolved, fset.Position(a.Pos()).String()+" "+a.Name)
				}
			default:
				unresolved = append(unresolved, fset.Position(a.Pos()).String())
			}
			return true
		})
	}
	// Finding{Rule: …} literals outside add.
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := cl.Type.(*ast.Ident); !ok || id.Name != "Finding" {
				return true
			}
			for _, e := range cl.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok || kv.Key.(*ast.Ident).Name != "Rule" {
					continue
				}
				switch v := kv.Value.(type) {
				case *ast.BasicLit:
					s, _ := strconv.Unquote(v.Value)
					used[s] = true
				case *ast.Ident:
					if s, ok := consts[v.Name]; ok {
						used[s] = true
					} else if v.Name != "id" {
						unresolved = append(unresolved, fset.Position(v.Pos()).String()+" "+v.Name)
					}
				}
			}
			return true
		})
	}
	sort.Strings(unresolved)
	for _, u := range unresolved {
		t.Errorf("%s: a rule ID the test cannot resolve: use an ID* constant", u)
	}
	return consts, used, sevs
}
