package plan

import (
	"bytes"
	"github.com/outboxctl/outboxctl/internal/golden"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/findings"
)

const secret = "s3cr3t-Passw0rd"

func pgConfig() map[string]string {
	return map[string]string{
		"connector.class":        "io.debezium.connector.postgresql.PostgresConnector",
		"database.hostname":      "127.0.0.1",
		"database.port":          "5432",
		"database.user":          "postgres",
		"database.password":      secret,
		"database.dbname":        "orders",
		"topic.prefix":           "orders",
		"plugin.name":            "pgoutput",
		"slot.name":              "orders_outbox",
		"publication.name":       "orders_outbox",
		"snapshot.mode":          "no_data",
		"table.include.list":     "public.outbox_event",
		"tasks.max":              "1",
		"transforms":             "outbox",
		"transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
		"transforms.outbox.route.topic.replacement": "${routedByValue}.events",
		"value.converter": "io.debezium.converters.BinaryDataConverter",
	}
}

func mariaConfig() map[string]string {
	return map[string]string{
		"connector.class":    "io.debezium.connector.mariadb.MariaDbConnector",
		"database.hostname":  "127.0.0.1",
		"database.port":      "3306",
		"database.user":      "root",
		"database.password":  "${file:/etc/secrets/db.properties:password}",
		"database.server.id": "184054",
		"topic.prefix":       "billing",
		"table.include.list": "billing.outbox_event",
		"tasks.max":          "1",
	}
}

func clone(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func actualOf(name string, cfg map[string]string, state string) ActualConnector {
	c := clone(cfg)
	c["name"] = name
	c[OwnerKey] = DefaultOwner
	return ActualConnector{Name: name, Config: c, Status: &connect.Status{Name: name, Connector: connect.ConnectorState{State: state}, Tasks: []connect.TaskState{{ID: 0, State: state}}}}
}

func TestDiffNormalisation(t *testing.T) {
	desired := []connectorconfig.Connector{{Name: "orders", Config: pgConfig(), Sensitive: []string{"database.password"}}, {Name: "billing", Config: mariaConfig()}}
	pg := clone(pgConfig())
	pg["database.password"] = "[hidden]" // masked by Connect
	pg["database.port"] = "5432.0"       // number formatting
	pg["tasks.max"] = " 1"               // whitespace
	pg["table.include.list"] = "public.outbox_event"
	ma := clone(mariaConfig())
	ma["database.password"] = "resolved-by-provider" // config provider resolved
	actual := map[string]ActualConnector{
		"orders":  actualOf("orders", pg, connect.StateRunning),
		"billing": actualOf("billing", ma, connect.StateRunning),
	}
	p := Diff(desired, actual)
	if p.HasChanges() {
		var b bytes.Buffer
		_ = RenderText(&b, p)
		t.Fatalf("normalised values show as drift:\n%s", b.String())
	}
	if got := p.Changes[1].Masked; len(got) != 1 || got[0] != "database.password" {
		t.Errorf("masked keys = %v, want [database.password]", got)
	}
	// A real change is still seen, and a key Connect has that the spec drops
	// is a removal; "name" is not.
	pg2 := clone(pg)
	pg2["snapshot.mode"] = "initial"
	pg2["heartbeat.interval.ms"] = "10000"
	actual["orders"] = actualOf("orders", pg2, connect.StateRunning)
	p = Diff(desired, actual, WithAllow(RuleSnapshotMode))
	ch := p.Changes[1]
	if ch.Action != Update || len(ch.Keys) != 2 || ch.Keys[0].Key != "heartbeat.interval.ms" || ch.Keys[0].Action != Delete || ch.Keys[1].Key != "snapshot.mode" {
		t.Fatalf("change = %+v", ch)
	}
	if len(p.Blocked()) != 0 || len(p.Findings()) != 1 || p.Findings()[0].Rule != RuleSnapshotMode {
		t.Errorf("findings = %+v", p.Findings())
	}
}

func TestDiffState(t *testing.T) {
	desired := []connectorconfig.Connector{{Name: "orders", Config: pgConfig(), State: "paused"}}
	actual := map[string]ActualConnector{"orders": actualOf("orders", pgConfig(), connect.StateRunning)}
	p := Diff(desired, actual)
	ch := p.Changes[0]
	if ch.Action != Update || ch.ConfigChanged || ch.State == nil || ch.State.Before != "running" || ch.State.After != "paused" {
		t.Fatalf("change = %+v", ch)
	}
	// FAILED counts as running: no state change, a no-op.
	actual["orders"] = actualOf("orders", pgConfig(), connect.StateFailed)
	desired[0].State = ""
	if p := Diff(desired, actual); p.HasChanges() {
		t.Fatalf("failed connector planned as change: %+v", p.Changes)
	}
}

func TestDangerousRules(t *testing.T) {
	mod := func(base map[string]string, kv ...string) map[string]string {
		m := clone(base)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	cases := []struct {
		name     string
		before   map[string]string
		after    map[string]string
		want     []string
		wantText string
	}{
		{"topic prefix", pgConfig(), mod(pgConfig(), "topic.prefix", "orders2"), []string{RuleTopicPrefix}, "offsets"},
		{"slot", pgConfig(), mod(pgConfig(), "slot.name", "orders_v2"), []string{RuleSlotName}, "retaining WAL"},
		{"slot default to explicit default is no change", mod(pgConfig(), "slot.name", ""), mod(pgConfig(), "slot.name", "debezium"), nil, ""},
		{"publication", pgConfig(), mod(pgConfig(), "publication.name", "p2"), []string{RulePublicationName}, "publication"},
		{"snapshot", pgConfig(), mod(pgConfig(), "snapshot.mode", "always"), []string{RuleSnapshotMode}, "re-publish"},
		{"server id", mariaConfig(), mod(mariaConfig(), "database.server.id", "184055"), []string{RuleServerID}, "replica"},
		{"route", pgConfig(), mod(pgConfig(), "transforms.outbox.route.topic.replacement", "outbox.${routedByValue}"), []string{RuleRoute}, "other topics"},
		{"route key added", pgConfig(), mod(pgConfig(), "transforms.outbox.route.by.field", "type"), []string{RuleRoute}, "other topics"},
		{"converter", pgConfig(), mod(pgConfig(), "value.converter", "org.apache.kafka.connect.json.JsonConverter"), []string{RuleWireFormat}, "format"},
		{"pass-through converters are the same bytes", mod(pgConfig(), "value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter"),
			mod(pgConfig(), "value.converter.delegate.converter.type", "org.apache.kafka.connect.json.JsonConverter", "value.converter.delegate.converter.type.schemas.enable", "false"), nil, ""},
		{"delegate dropped with a move off pass-through", mod(pgConfig(), "value.converter.delegate.converter.type", "org.apache.kafka.connect.json.JsonConverter"),
			mod(pgConfig(), "value.converter", "org.apache.kafka.connect.storage.StringConverter"), []string{RuleWireFormat, RuleWireFormat}, "format"},
		{"expand json", pgConfig(), mod(pgConfig(), "transforms.outbox.table.expand.json.payload", "true"), []string{RuleWireFormat}, "format"},
		{"include list", mod(pgConfig(), "table.include.list", "public.outbox_event,public.other"), mod(pgConfig(), "table.include.list", "public.other"), []string{RuleOutboxTableExcluded}, "public.outbox_event"},
		{"include list grows", pgConfig(), mod(pgConfig(), "table.include.list", "public.outbox_event,public.other"), nil, ""},
		{"harmless", pgConfig(), mod(pgConfig(), "poll.interval.ms", "100"), nil, ""},
		{"class", pgConfig(), mod(pgConfig(), "connector.class", "io.debezium.connector.mysql.MySqlConnector"), []string{RuleConnectorClass}, "offsets"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Diff([]connectorconfig.Connector{{Name: "c", Config: tc.after}}, map[string]ActualConnector{"c": actualOf("c", tc.before, connect.StateRunning)})
			var got []string
			for _, f := range p.Findings() {
				got = append(got, f.Rule)
				if !strings.Contains(f.Message, tc.wantText) {
					t.Errorf("%s message %q lacks %q", f.Rule, f.Message, tc.wantText)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("rules = %v, want %v", got, tc.want)
			}
			if len(tc.want) > 0 {
				p2 := Diff([]connectorconfig.Connector{{Name: "c", Config: tc.after}}, map[string]ActualConnector{"c": actualOf("c", tc.before, connect.StateRunning)}, WithAllow(tc.want...))
				if len(p2.Blocked()) != 0 {
					t.Errorf("allowed rule still blocks: %+v", p2.Blocked())
				}
			}
		})
	}
}

func TestRenameAndPrune(t *testing.T) {
	actual := map[string]ActualConnector{
		"orders-old": actualOf("orders-old", pgConfig(), connect.StateRunning),
		"foreign":    {Name: "foreign", Config: map[string]string{"connector.class": "x", "name": "foreign"}},
	}
	desired := []connectorconfig.Connector{{Name: "orders-new", Config: pgConfig()}}
	p := Diff(desired, actual)
	if b := p.Blocked(); len(b) != 1 || b[0].Rule != RuleConnectorRename || !strings.Contains(b[0].Message, `"orders-old"`) {
		t.Fatalf("blocked = %+v", b)
	}
	if c := p.Counts(); c.Create != 1 || c.Delete != 0 {
		t.Fatalf("without prune nothing is deleted: %+v", c)
	}
	p = Diff(desired, actual, WithPrune(true), WithAllow(RuleConnectorRename))
	if c := p.Counts(); c.Create != 1 || c.Delete != 1 {
		t.Fatalf("prune deletes only the owned connector: %+v", c)
	}
	for _, ch := range p.Changes {
		if ch.Name == "foreign" {
			t.Fatal("prune planned to delete a connector without the ownership marker")
		}
	}
	p = Diff(desired, actual, WithPrune(true), WithOwner("team-b"))
	if c := p.Counts(); c.Delete != 0 {
		t.Fatalf("another owner's connectors are not pruned: %+v", c)
	}
}

// TestPruneGuard: a prune that deletes every managed connector, or more
// than the limit, is blocked on each delete; only WithPruneLimit lifts it.
func TestPruneGuard(t *testing.T) {
	t.Parallel()
	actual := map[string]ActualConnector{}
	for _, n := range []string{"a", "b", "c"} {
		actual[n] = actualOf(n, pgConfig(), connect.StateRunning)
	}
	actual["foreign"] = ActualConnector{Name: "foreign", Config: map[string]string{"connector.class": "x"}}
	keep := func(names ...string) []connectorconfig.Connector {
		var out []connectorconfig.Connector
		for _, n := range names {
			out = append(out, connectorconfig.Connector{Name: n, Config: pgConfig()})
		}
		return out
	}
	rules := func(p Plan) string {
		var out []string
		for _, f := range p.Blocked() {
			if f.Rule != RulePruneAll && f.Rule != RulePruneLimit {
				continue // "new" takes over a's source: a rename
			}
			out = append(out, f.Rule+":"+f.Connector)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name    string
		desired []connectorconfig.Connector
		opts    []DiffOption
		want    string
	}{
		{"all, default", keep("new"), nil, "PRUNE_ALL:a,PRUNE_ALL:b,PRUNE_ALL:c"},
		{"all, --allow all does not lift it", keep("new"), []DiffOption{WithAllow("all"), WithAllow(RulePruneAll)}, "PRUNE_ALL:a,PRUNE_ALL:b,PRUNE_ALL:c"},
		{"all, allowed", keep("new"), []DiffOption{WithPruneLimit(0, true)}, ""},
		{"all of one", keep("a", "b"), []DiffOption{WithPruneLimit(5, false)}, ""},
		{"two, limit 1", keep("a"), []DiffOption{WithPruneLimit(1, false)}, "PRUNE_LIMIT:b,PRUNE_LIMIT:c"},
		{"two, limit 2", keep("a"), []DiffOption{WithPruneLimit(2, false)}, ""},
		{"one, limit 1", keep("a", "b"), []DiffOption{WithPruneLimit(1, false)}, ""},
		{"one, no limit", keep("a", "b"), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Diff(tc.desired, actual, append([]DiffOption{WithPrune(true)}, tc.opts...)...)
			if got := rules(p); got != tc.want {
				t.Errorf("blocked = %q, want %q", got, tc.want)
			}
			if p.Counts().Delete != 3-len(tc.desired)+countNew(tc.desired) {
				t.Errorf("every delete is still planned and listed: %+v", p.Counts())
			}
		})
	}
}

func countNew(ds []connectorconfig.Connector) int {
	n := 0
	for _, d := range ds {
		if d.Name == "new" {
			n++
		}
	}
	return n
}

// renderCases are the plans whose text and JSON renderings are golden.
func renderCases() map[string]Plan {
	pg := pgConfig()
	changed := clone(pg)
	changed["snapshot.mode"] = "initial"
	changed["database.password"] = "old-password"
	changed["poll.interval.ms"] = "500"
	return map[string]Plan{
		"no_changes":     Diff([]connectorconfig.Connector{{Name: "orders", Config: pg}}, map[string]ActualConnector{"orders": actualOf("orders", pg, connect.StateRunning)}),
		"create":         Diff([]connectorconfig.Connector{{Name: "billing", Config: mariaConfig(), State: "paused", Source: "outbox.yaml:12:3"}}, nil),
		"update_blocked": Diff([]connectorconfig.Connector{{Name: "orders", Config: pg, Sensitive: []string{"database.password"}}}, map[string]ActualConnector{"orders": actualOf("orders", changed, connect.StateRunning)}),
		"prune_and_replace": Diff([]connectorconfig.Connector{{Name: "billing", Config: func() map[string]string {
			m := mariaConfig()
			m["connector.class"] = "io.debezium.connector.mysql.MySqlConnector"
			return m
		}()}}, map[string]ActualConnector{
			"billing": actualOf("billing", mariaConfig(), connect.StateRunning),
			"gone":    actualOf("gone", pg, connect.StatePaused),
		}, WithPrune(true), WithAllow("all")),
	}
}

func TestRenderGolden(t *testing.T) {
	for name, p := range renderCases() {
		t.Run(name, func(t *testing.T) {
			var txt, js bytes.Buffer
			if err := RenderText(&txt, p); err != nil {
				t.Fatal(err)
			}
			if err := RenderJSON(&js, p); err != nil {
				t.Fatal(err)
			}
			for _, out := range [][]byte{txt.Bytes(), js.Bytes()} {
				if bytes.Contains(out, []byte(secret)) || bytes.Contains(out, []byte("old-password")) {
					t.Fatalf("secret in output:\n%s", out)
				}
			}
			golden.Assert(t, filepath.Join("testdata", "TestRenderGolden", name+".txt"), txt.Bytes())
			golden.Assert(t, filepath.Join("testdata", "TestRenderGolden", name+".json"), js.Bytes())
		})
	}
}

func TestReportGolden(t *testing.T) {
	p := renderCases()["create"]
	rep := Report{
		Server: connect.ServerInfo{Version: "4.3.1", Commit: "abc", KafkaClusterID: "cluster"},
		Results: []Result{
			{Name: "billing", Action: Create, Written: []string{"created (initial_state=PAUSED)"}, Converged: true, Wanted: "paused", State: "PAUSED", Tasks: []connect.TaskState{{ID: 0, State: "PAUSED", WorkerID: "w:8083"}}, Elapsed: 1500 * 1e6},
			{Name: "orders", Action: Update, Written: []string{"config updated (PUT)"}, Wanted: "running", State: "RUNNING", Tasks: []connect.TaskState{{ID: 0, State: "FAILED", WorkerID: "w:8083", Trace: "java.lang.Exception: boom\n\tat x"}}, Reason: "task 0 FAILED", Trace: "java.lang.Exception: boom\n\tat x", Elapsed: 3 * 1e9},
		},
	}
	var js, txt bytes.Buffer
	if err := RenderReportJSON(&js, p, rep); err != nil {
		t.Fatal(err)
	}
	if err := RenderReportText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "TestReportGolden", "report.json"), js.Bytes())
	golden.Assert(t, filepath.Join("testdata", "TestReportGolden", "report.txt"), txt.Bytes())
}

// TestAllowAliasAndFileFindings: WithAllow accepts a rule's earlier ID, and
// FileFindings places each finding at its connector's source.
func TestAllowAliasAndFileFindings(t *testing.T) {
	i := 0
	for ; Rules[i].ID != RuleSlotName; i++ {
	}
	saved := Rules[i].Aliases
	Rules[i].Aliases = []string{"OLD_SLOT_RULE"}
	defer func() { Rules[i].Aliases = saved }()

	before := map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "p", "slot.name": "a"}
	after := clone(before)
	after["slot.name"] = "b"
	actual := map[string]ActualConnector{"c": actualOf("c", before, connect.StateRunning)}
	for _, tc := range []struct {
		source    string
		allow     []string
		file      string
		line, col int
		severity  findings.Severity
	}{
		{"spec.yaml:3:5", nil, "spec.yaml", 3, 5, findings.SeverityError},
		{"connectors.json", []string{" old_slot_rule "}, "connectors.json", 0, 0, findings.SeverityWarning},
		{"<stdin>", []string{RuleSlotName}, "", 0, 0, findings.SeverityWarning},
	} {
		p := Diff([]connectorconfig.Connector{{Name: "c", Config: after, Source: tc.source}}, actual, WithAllow(tc.allow...))
		fs := p.FileFindings()
		if len(fs) != 1 {
			t.Fatalf("%s: findings = %+v", tc.source, fs)
		}
		f := fs[0]
		if f.Rule != RuleSlotName || f.File != tc.file || f.Line != tc.line || f.Col != tc.col || f.Severity != tc.severity || !strings.HasPrefix(f.Message, "c: ") {
			t.Errorf("%s: finding = %+v", tc.source, f)
		}
	}
}

// TestOwnerTakeover: rewriting the marker of another owner's connector, or
// marking a connector that has none, is a blocked finding until allowed.
func TestOwnerTakeover(t *testing.T) {
	t.Parallel()
	desired := []connectorconfig.Connector{{Name: "orders", Config: map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "orders"}}}
	actual := func(owner string) map[string]ActualConnector {
		cfg := map[string]string{"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "orders"}
		if owner != "" {
			cfg[OwnerKey] = owner
		}
		return map[string]ActualConnector{"orders": {Name: "orders", Config: cfg}}
	}
	for _, tt := range []struct {
		name, have, owner, want string
	}{
		{"other owner", DefaultOwner, "teamb", `managed by "outboxctl"`},
		{"unmanaged", "", DefaultOwner, "has no ownership marker"},
		{"marker stripped", DefaultOwner, "", "writes no ownership marker"},
	} {
		p := Diff(desired, actual(tt.have), WithOwner(tt.owner))
		b := p.Blocked()
		if len(b) != 1 || b[0].Rule != RuleOwnerTakeover || !strings.Contains(b[0].Message, tt.want) {
			t.Errorf("%s: blocked = %+v, want one %s finding containing %q", tt.name, b, RuleOwnerTakeover, tt.want)
		}
		if b := Diff(desired, actual(tt.have), WithOwner(tt.owner), WithAllow(RuleOwnerTakeover)).Blocked(); len(b) != 0 {
			t.Errorf("%s: allowed, still blocked: %+v", tt.name, b)
		}
	}
	if b := Diff(desired, actual(DefaultOwner)).Blocked(); len(b) != 0 {
		t.Errorf("own connector: blocked = %+v", b)
	}
}
