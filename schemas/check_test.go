package schemas

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/testfs"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/schemas/registry/srfake"
	"github.com/outboxctl/outboxctl/spec"
)

const ckSpec = `apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: orders
    database: {kind: postgres, connection: {host: h, user: u, dbname: d}}
    routing:
      topicRegex: "(?<routedByValue>.*)"
      topicReplacement: "events.${routedByValue}"
    events:
      - name: OrderCreated
        aggregate: Order
        versions:
          - {major: 1, schema: schemas/OrderCreated.v1.avsc}
          - {major: 2, schema: schemas/OrderCreated.v2.avsc}
  - name: payments
    database: {kind: mariadb, connection: {host: h, user: u, dbname: d}}
    payloadFormat: json
    events:
      - name: PaymentCaptured
        aggregate: Payment
        subjectStrategy: RecordNameStrategy
        versions:
          - {major: 1, schema: schemas/PaymentCaptured.v1.avsc}
`

const (
	ckCreatedV1 = `{
  "type": "record", "name": "OrderCreated", "namespace": "acme.v1",
  "fields": [
    {"name": "id", "type": "string"},
    {"name": "total", "type": "long"}
  ]
}`
	// ckCreatedV1Bad: total becomes an int (line 5), a required field
	// appears (line 6).
	ckCreatedV1Bad = `{
  "type": "record", "name": "OrderCreated", "namespace": "acme.v1",
  "fields": [
    {"name": "id", "type": "string"},
    {"name": "total", "type": "int"},
    {"name": "channel", "type": "string"}
  ]
}`
	ckCreatedV2  = `{"type": "record", "name": "OrderCreated", "namespace": "acme.v2", "fields": [{"name": "id", "type": "string"}]}`
	ckPaymentV1  = `{"type": "record", "name": "PaymentCaptured", "namespace": "acme.v1", "fields": [{"name": "id", "type": "string"}]}`
	ckSubjectV1  = "events.Order-acme.v1.OrderCreated"
	ckSubjectV2  = "events.Order-acme.v2.OrderCreated"
	ckSubjectPay = "acme.v1.PaymentCaptured"
)

// ckWorkspace writes the spec and schemas into a temp dir and chdirs there.
func ckWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := testfs.Write(t, files)
	t.Chdir(dir)
	return dir
}

func ckFiles() map[string]string {
	return map[string]string{
		"outbox.yaml":                     ckSpec,
		"schemas/OrderCreated.v1.avsc":    ckCreatedV1,
		"schemas/OrderCreated.v2.avsc":    ckCreatedV2,
		"schemas/PaymentCaptured.v1.avsc": ckPaymentV1,
	}
}

func ckCatalog(t *testing.T) (*spec.Spec, *Catalog) {
	t.Helper()
	s, err := spec.Load("outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := BuildCatalog(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, cat
}

func TestBuildCatalog(t *testing.T) {
	ckWorkspace(t, ckFiles())
	_, cat := ckCatalog(t)
	want := []struct{ subject, record, topic, file string }{
		{ckSubjectV1, "acme.v1.OrderCreated", "events.Order", "schemas/OrderCreated.v1.avsc"},
		{ckSubjectV2, "acme.v2.OrderCreated", "events.Order", "schemas/OrderCreated.v2.avsc"},
		{ckSubjectPay, "acme.v1.PaymentCaptured", "outbox.event.Payment", "schemas/PaymentCaptured.v1.avsc"},
	}
	if len(cat.Entries) != len(want) {
		t.Fatalf("%d entries, want %d", len(cat.Entries), len(want))
	}
	for i, w := range want {
		e := cat.Entries[i]
		if e.Subject != w.subject || e.Record != w.record || e.Topic != w.topic || e.File != w.file {
			t.Errorf("entry %d = %s %s %s %s, want %+v", i, e.Subject, e.Record, e.Topic, e.File, w)
		}
	}
	if cat.Entries[2].Registered() || !cat.Entries[0].Registered() {
		t.Error("only avro-payload entries belong in the registry")
	}
}

func TestBuildCatalogErrors(t *testing.T) {
	files := ckFiles()
	delete(files, "schemas/OrderCreated.v2.avsc")
	files["schemas/PaymentCaptured.v1.avsc"] = `{"type": "record", "name": "P", "fields": [{"name": "a", "type": "nope"}]}`
	ckWorkspace(t, files)
	s, err := spec.Load("outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildCatalog(s)
	if !errors.Is(err, ErrBadCatalog) {
		t.Fatalf("err = %v, want ErrBadCatalog", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`outbox.yaml:13:32: event type "OrderCreated" v2: schema file schemas/OrderCreated.v2.avsc not found`,
		`schemas/PaymentCaptured.v1.avsc:1:`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func TestEventTopic(t *testing.T) {
	tests := []struct {
		name, byField, regex, repl, want, wantErr string
	}{
		{name: "default", repl: "outbox.event.${routedByValue}", want: "outbox.event.Order"},
		{name: "regex groups", regex: "(?<agg>Ord)(er)", repl: "t.${agg}.$2", want: "t.Ord.er"},
		{name: "escaped dollar", regex: "(.*)", repl: `\$x.$1`, want: "$x.Order"},
		{name: "by type column", byField: "type", repl: "ev.${routedByValue}", want: "ev.OrderCreated"},
		{name: "no match", regex: "Pay.*", repl: "x", wantErr: "does not match"},
		{name: "other column", byField: "tenant", repl: "x", wantErr: "cannot be derived"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &spec.Outbox{Columns: spec.Columns{AggregateType: "aggregatetype", Type: "type"}}
			o.Routing.ByField = "aggregatetype"
			if tt.byField != "" {
				o.Routing.ByField = tt.byField
			}
			o.Routing.TopicRegex, o.Routing.TopicReplacement = tt.regex, tt.repl
			got, err := eventTopic(o, &spec.EventType{Name: "OrderCreated", Aggregate: "Order"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("topic = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	src := `{
  "type": "record", "name": "R",
  "fields": [
    {"name": "a", "type": "int"},
    {"name": "b", "type": {"type": "array", "items": "long"}}
  ]
}`
	s, err := avro.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		loc       string
		line, col int
	}{
		{"/", 1, 1},
		{"/fields/0", 4, 5},
		{"/fields/1/type/items", 5, 5},
		{"/fields/9", 1, 1},
		{"/name", 1, 1},
	}
	for _, tt := range tests {
		p := locate(s, tt.loc)
		if p.Line != tt.line || p.Col != tt.col {
			t.Errorf("locate(%q) = %d:%d, want %d:%d", tt.loc, p.Line, p.Col, tt.line, tt.col)
		}
	}
}

func TestParseAcceptedBreaks(t *testing.T) {
	good := "accepted:\n  - subject: s\n    fingerprint: 0X0D546D8FC036B05C\n    reason: agreed\n  - subject: t\n    version: 3\n    reason: r\n"
	a, err := ParseAcceptedBreaks("a.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Accepted) != 2 || a.Accepted[0].Fingerprint != "0d546d8fc036b05c" || a.Accepted[1].Version != 3 || a.Accepted[0].Pos != "a.yaml:2:5" {
		t.Fatalf("parsed = %+v", a.Accepted)
	}
	if a.match("s", "0d546d8fc036b05c", 1) == nil || a.match("t", "x", 3) == nil || a.match("t", "x", 2) != nil || a.match("u", "0d546d8fc036b05c", 3) != nil {
		t.Error("match is wrong")
	}
	bad := []struct{ src, want string }{
		{"accepted:\n  - subject: s\n    reason: r\n", "a.yaml:2:5: bad accepted-breaks file: give version or fingerprint"},
		{"accepted:\n  - subject: s\n    version: 1\n", "reason is required"},
		{"accepted:\n  - subject: s\n    version: 0\n    reason: r\n", "a.yaml:3:14: bad accepted-breaks file: version \"0\""},
		{"accepted:\n  - subject: s\n    fingerprint: xyz\n    reason: r\n", "fingerprint \"xyz\": want 16 hex digits"},
		{"accept: []\n", "unknown key \"accept\""},
	}
	for _, tt := range bad {
		_, err := ParseAcceptedBreaks("a.yaml", []byte(tt.src))
		if !errors.Is(err, ErrBadAcceptedBreaks) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.src, err, tt.want)
		}
	}
	if a, err := ParseAcceptedBreaks("a.yaml", nil); err != nil || len(a.Accepted) != 0 {
		t.Errorf("empty file: %v, %v", a, err)
	}
}

func ckGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestCheckCatalogAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	files := ckFiles()
	delete(files, "schemas/OrderCreated.v2.avsc")
	files["outbox.yaml"] = strings.Replace(ckSpec, "          - {major: 2, schema: schemas/OrderCreated.v2.avsc}\n", "", 1)
	dir := ckWorkspace(t, files)
	ckGit(t, dir, "init", "-q")
	ckGit(t, dir, "add", ".")
	ckGit(t, dir, "commit", "-q", "-m", "base")
	// The change: v1 breaks, v2 appears.
	if err := os.WriteFile("schemas/OrderCreated.v1.avsc", []byte(ckCreatedV1Bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("schemas/OrderCreated.v2.avsc", []byte(ckCreatedV2), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("outbox.yaml", []byte(ckSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, cat := ckCatalog(t)
	ctx := context.Background()
	if _, err := GitBaseline(ctx, "no-such-ref", s.Files); !errors.Is(err, ErrBadRef) {
		t.Fatalf("bad ref: %v", err)
	}
	b, err := GitBaseline(ctx, "HEAD", s.Files)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CheckCatalog(ctx, cat, []Baseline{b}, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Compatible || rep.Summary != (Summary{Compatible: 1, Incompatible: 1, New: 1}) {
		t.Fatalf("summary = %+v compatible=%v", rep.Summary, rep.Compatible)
	}
	r := rep.Results[0]
	if r.Status != StatusIncompatible || r.Subject != ckSubjectV1 || r.Level != "BACKWARD_TRANSITIVE" || r.Previous != "HEAD:schemas/OrderCreated.v1.avsc" {
		t.Fatalf("result = %+v", r)
	}
	if len(r.Problems) != 2 || r.Problems[0].Type != "TYPE_MISMATCH" || r.Problems[0].Line != 5 || r.Problems[1].Type != "READER_FIELD_MISSING_DEFAULT_VALUE" || r.Problems[1].Line != 6 || r.Problems[1].Col != 5 {
		t.Fatalf("problems = %+v", r.Problems)
	}
	if rep.Results[1].Status != StatusNew || rep.Results[1].Subject != ckSubjectV2 {
		t.Fatalf("v2 = %+v", rep.Results[1])
	}

	// Accepted by fingerprint: passes, reported as accepted.
	acc := &AcceptedBreaks{Accepted: []AcceptedBreak{{Subject: ckSubjectV1, Fingerprint: r.Fingerprint, Reason: "ok"}, {Subject: "stale", Version: 1, Reason: "x"}}}
	rep, err = CheckCatalog(ctx, cat, []Baseline{b}, CheckOptions{Accepted: acc})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Compatible || rep.Results[0].Status != StatusAccepted || rep.Results[0].Accepted.Reason != "ok" || len(rep.Unused) != 1 || rep.Unused[0].Subject != "stale" {
		t.Fatalf("accepted: %+v unused %+v", rep.Results[0], rep.Unused)
	}

	// At FORWARD the old schema reads the new data: the int total promotes
	// to long and the new field is ignored.
	rep, err = CheckCatalog(ctx, cat, []Baseline{b}, CheckOptions{Level: "FORWARD"})
	if err != nil || !rep.Compatible {
		t.Fatalf("forward: %+v, %v", rep, err)
	}
}

func TestCheckCatalogAgainstDirWithoutSpec(t *testing.T) {
	ckWorkspace(t, ckFiles())
	_, cat := ckCatalog(t)
	base := t.TempDir()
	// Only the schema file, no spec: matched by path.
	if err := os.MkdirAll(filepath.Join(base, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "schemas/OrderCreated.v1.avsc"), []byte(strings.Replace(ckCreatedV1, `"long"`, `"int"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := DirBaseline(base, []string{"outbox.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := CheckCatalog(context.Background(), cat, []Baseline{b}, CheckOptions{Level: "FULL"})
	if err != nil {
		t.Fatal(err)
	}
	// FULL: long→int fails forward (old int reader, new long writer).
	r := rep.Results[0]
	if r.Status != StatusIncompatible || len(r.Problems) != 1 || r.Problems[0].Direction != "forward" || r.Problems[0].Line != 5 {
		t.Fatalf("result = %+v", r)
	}
	if rep.Results[1].Status != StatusNew || rep.Results[2].Status != StatusNew {
		t.Fatalf("others = %+v", rep.Results[1:])
	}
	if _, err := DirBaseline(filepath.Join(base, "missing"), nil); !errors.Is(err, ErrBadBaseline) {
		t.Fatalf("missing dir: %v", err)
	}
}

func TestRegisterAndCheckAgainstRegistry(t *testing.T) {
	ckWorkspace(t, ckFiles())
	_, cat := ckCatalog(t)
	fake := srfake.New()
	t.Cleanup(fake.Close)
	c, err := registry.NewClient(fake.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	plan, err := RegisterCatalog(ctx, c, cat, RegisterOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Count(ActionCreate) != 2 || len(plan.Skipped) != 1 || plan.Steps[0].SetLevel != "BACKWARD_TRANSITIVE" || plan.Steps[0].Version != 0 {
		t.Fatalf("dry run = %+v", plan)
	}
	for _, r := range fake.Requests() {
		if !strings.HasPrefix(r, "GET ") && !strings.HasPrefix(r, "POST /subjects/") {
			t.Errorf("dry run wrote: %s", r)
		}
	}
	plan, err = RegisterCatalog(ctx, c, cat, RegisterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Count(ActionCreate) != 2 || plan.Steps[0].Version != 1 {
		t.Fatalf("register = %+v", plan)
	}
	// The level was set before the first version.
	var putAt, postAt int = -1, -1
	for i, r := range fake.Requests() {
		if r == "PUT /config/"+ckSubjectV1 && putAt < 0 {
			putAt = i
		}
		if r == "POST /subjects/"+ckSubjectV1+"/versions" && postAt < 0 {
			postAt = i
		}
	}
	if putAt < 0 || postAt < 0 || putAt > postAt {
		t.Fatalf("PUT /config at %d, first POST versions at %d: %v", putAt, postAt, fake.Requests())
	}
	if l, ok, _ := c.SubjectLevel(ctx, ckSubjectV1); !ok || l != "BACKWARD_TRANSITIVE" {
		t.Fatalf("level = %q %v", l, ok)
	}
	plan, err = RegisterCatalog(ctx, c, cat, RegisterOptions{})
	if err != nil || plan.Count(ActionUnchanged) != 2 {
		t.Fatalf("re-register = %+v, %v", plan, err)
	}

	// Against the registry: the break is found, at the registry's level.
	if err := os.WriteFile("schemas/OrderCreated.v1.avsc", []byte(ckCreatedV1Bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, cat = ckCatalog(t)
	if err := c.SetLevel(ctx, ckSubjectV1, "FORWARD"); err != nil {
		t.Fatal(err)
	}
	rep, err := CheckCatalog(ctx, cat, []Baseline{RegistryBaseline(c)}, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Compatible || rep.Results[0].Level != "FORWARD" || rep.Results[2].Status != StatusSkipped {
		t.Fatalf("at FORWARD: %+v", rep.Results)
	}
	if err := c.SetLevel(ctx, ckSubjectV1, "BACKWARD"); err != nil {
		t.Fatal(err)
	}
	rep, err = CheckCatalog(ctx, cat, []Baseline{RegistryBaseline(c)}, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Compatible || rep.Results[0].Status != StatusIncompatible || rep.Results[0].Problems[0].Version != 1 {
		t.Fatalf("at BACKWARD: %+v", rep.Results[0])
	}
	// The registry refuses it too: a refused step, not an error.
	plan, err = RegisterCatalog(ctx, c, cat, RegisterOptions{DryRun: true})
	if err != nil || !plan.Refused() || len(plan.Steps[0].Messages) == 0 {
		t.Fatalf("dry run of the break = %+v, %v", plan, err)
	}
	plan, err = RegisterCatalog(ctx, c, cat, RegisterOptions{})
	if err != nil || plan.Steps[0].Action != ActionRefused || !strings.Contains(plan.Steps[0].Error, "409") {
		t.Fatalf("register of the break = %+v, %v", plan, err)
	}
}

func TestRegisterReferencesInDependencyOrder(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	c, _ := registry.NewClient(fake.URL())
	money := `{"type":"record","name":"Money","namespace":"acme","fields":[{"name":"cents","type":"long"}]}`
	order := `{"type":"record","name":"Order","namespace":"acme","fields":[{"name":"total","type":"acme.Money"}]}`
	items := []RegisterItem{
		{Subject: "order", Schema: order, References: []registry.Reference{{Name: "acme.Money", Subject: "money"}}},
		{Subject: "money", Schema: money},
	}
	plan, err := Register(context.Background(), c, items, RegisterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Steps) != 2 || plan.Steps[0].Subject != "money" || plan.Steps[1].Subject != "order" || plan.Steps[1].Action != ActionCreate {
		t.Fatalf("plan = %+v", plan.Steps)
	}
	got, err := c.Latest(context.Background(), "order")
	if err != nil || len(got.References) != 1 || got.References[0].Version != 1 {
		t.Fatalf("order = %+v, %v", got, err)
	}
	cyc := []RegisterItem{
		{Subject: "a", References: []registry.Reference{{Subject: "b"}}},
		{Subject: "b", References: []registry.Reference{{Subject: "a"}}},
	}
	if _, err := Register(context.Background(), c, cyc, RegisterOptions{}); !errors.Is(err, ErrReferenceCycle) {
		t.Fatalf("cycle: %v", err)
	}
}

// Fingerprint is the hex form of avro.Fingerprint64 (16 digits, leading
// zeros kept).
func TestFingerprintIsHexOfFingerprint64(t *testing.T) {
	for _, src := range []string{`"int"`, `{"type":"record","name":"R","fields":[{"name":"a","type":"long","default":1}]}`} {
		s, err := avro.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		got := Fingerprint(s)
		if want := fmt.Sprintf("%016x", avro.Fingerprint64(s)); got != want || len(got) != 16 {
			t.Errorf("Fingerprint(%s) = %q, want %q", src, got, want)
		}
	}
}
