package cmd_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/outboxctl/outboxctl/connectorconfig/connect/connectfake"
)

type fakeKey struct{}

type fakeState struct {
	srv  *connectfake.Server
	mark int
}

// setupConnectFake starts an in-memory Kafka Connect for every script and
// points OUTBOX_CONNECT_URL at it. A script configures it with a
// connectfake.json file in its archive:
//
//	{"version": "3.6.2", "mask": ["database.password"], "start_delay": "200ms"}
func setupConnectFake(e *testscript.Env) error {
	var cfg struct {
		Version    string   `json:"version"`
		Mask       []string `json:"mask"`
		StartDelay string   `json:"start_delay"`
	}
	if data, err := os.ReadFile(filepath.Join(e.WorkDir, "connectfake.json")); err == nil {
		if err := json.Unmarshal(data, &cfg); err != nil {
			return err
		}
	}
	o := []connectfake.Option{connectfake.WithVersion(cfg.Version), connectfake.WithMaskKeys(cfg.Mask...)}
	if cfg.StartDelay != "" {
		d, err := time.ParseDuration(cfg.StartDelay)
		if err != nil {
			return err
		}
		o = append(o, connectfake.WithStartDelay(d))
	}
	srv := connectfake.New(o...)
	e.Defer(srv.Close)
	e.Values[fakeKey{}] = &fakeState{srv: srv}
	e.Setenv("OUTBOX_CONNECT_URL", srv.URL)
	e.Setenv("CONNECTFAKE_URL", srv.URL)
	e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".config"))
	return nil
}

// connectfakeCmds are the script commands that drive and inspect the fake:
//
//	fake conflicts N            the next N writes answer 409 (rebalance)
//	fake fail NAME TRACE        NAME's task is FAILED with TRACE ("" clears)
//	fake seed NAME FILE [STATE] create NAME with the config in FILE (not counted)
//	fake mark                   start counting writes from here
//	fake writes N               exactly N writes since the mark
//	fake puts NAME N            NAME got exactly N config writes
//	fake taskrestarts NAME N    NAME's tasks were (re)started exactly N times
//	fake config NAME KEY VALUE  NAME's stored config has KEY = VALUE (unmasked)
//	fake hang 'METHOD /path' [off]     such requests get no answer (until "off")
//	fake answer 'METHOD /path' STATUS FILE  such requests get FILE as the answer (STATUS 0 clears)
//
// and httpfake (see httpfakeCmd).
func connectfakeCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"httpfake": httpfakeCmd,
		"fake": func(ts *testscript.TestScript, neg bool, args []string) {
			st := ts.Value(fakeKey{}).(*fakeState)
			if len(args) == 0 {
				ts.Fatalf("usage: fake conflicts|fail|seed|mark|writes|puts|taskrestarts ...")
			}
			num := func(s string) int {
				n, err := strconv.Atoi(s)
				ts.Check(err)
				return n
			}
			check := func(what string, got, want int) {
				if (got == want) == neg {
					ts.Fatalf("%s = %d, want %s%d (writes: %s)", what, got, map[bool]string{true: "not ", false: ""}[neg], want, strings.Join(st.srv.Writes(), "; "))
				}
			}
			switch args[0] {
			case "conflicts":
				st.srv.InjectConflicts(num(args[1]))
			case "fail":
				st.srv.FailConnector(args[1], args[2])
			case "seed":
				var cfg map[string]string
				ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[2])), &cfg))
				state := "RUNNING"
				if len(args) > 3 {
					state = args[3]
				}
				st.srv.Seed(args[1], cfg, state)
			case "mark":
				st.mark = len(st.srv.Writes())
			case "writes":
				check("writes since mark", len(st.srv.Writes())-st.mark, num(args[1]))
			case "puts":
				check("puts of "+args[1], st.srv.Puts(args[1]), num(args[2]))
			case "config":
				resp, err := http.Get(st.srv.URL + "/connectors/" + args[1] + "/config")
				ts.Check(err)
				var cfg map[string]string
				err = json.NewDecoder(resp.Body).Decode(&cfg)
				resp.Body.Close()
				ts.Check(err)
				if got, ok := cfg[args[2]]; (ok && got == args[3]) == neg {
					ts.Fatalf("config of %s: %s = %q, want %s%q", args[1], args[2], got, map[bool]string{true: "not ", false: ""}[neg], args[3])
				}
			case "hang":
				st.srv.Hang(args[1], len(args) < 3 || args[2] != "off")
			case "answer":
				body := ""
				if num(args[2]) != 0 {
					body = ts.ReadFile(args[3])
				}
				st.srv.Answer(args[1], num(args[2]), body)
			case "taskrestarts":
				check("task restarts of "+args[1], st.srv.TaskRestarts(args[1]), num(args[2]))
			default:
				ts.Fatalf("unknown fake command %q", args[0])
			}
		},
	}
}
