package cmd_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/outboxctl/outboxctl/cmd"
)

var updateScripts = flag.Bool("update", false, "update testscript golden output (cmp) in testdata/script")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"outboxctl": func() { os.Exit(cmd.Main()) },
	})
}

// TestScripts runs the CLI scripts in testdata/script/*.txtar. Each script
// runs `exec outboxctl …` and compares stdout/stderr and exit codes. Run with
// -update to rewrite the expected output files inside the scripts.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Cmds:          connectfakeCmds(),
		Setup: func(e *testscript.Env) error {
			// Keep the scripts hermetic: no real endpoints unless a script
			// sets them.
			e.Setenv("NO_COLOR", "1")
			// The GitHub Action's run step (action.yml), for action_sh.txtar.
			actionSh, err := filepath.Abs(filepath.Join("..", "scripts", "action.sh"))
			if err != nil {
				return err
			}
			e.Setenv("ACTION_SH", actionSh)
			if err := setupSchemaRegistryFake(e); err != nil {
				return err
			}
			return setupConnectFake(e)
		},
	})
}
