package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Load reads spec files and folders (below a folder, every *.yaml and *.yml
// that IsSpec, in lexical order; hidden folders such as .github and other
// YAML files are skipped and listed in Spec.Skipped), merges them into one
// Spec, applies the defaults and checks it. A file may hold several YAML
// documents (---). A spec without outboxes is an error.
//
// Every problem is reported, not only the first: the error is an ErrorList
// whose entries carry file:line:col (errors.Is(err, ErrInvalidSpec) holds).
// Files that cannot be read give a plain wrapped error.
func Load(paths ...string) (*Spec, error) {
	return LoadWith(paths)
}

// LoadWith is Load with extra in-memory files (standard input, for
// example) parsed after the files and folders of paths.
func LoadWith(paths []string, extra ...Source) (*Spec, error) {
	if len(paths) == 0 && len(extra) == 0 {
		return nil, fmt.Errorf("load spec: no file given: %w", ErrInvalidSpec)
	}
	var files, skipped []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("load spec: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found, other []string
		hidden, err := WalkFolder(p, []string{".yaml", ".yml"}, func(path string, data []byte) error {
			if IsSpec(data) {
				found = append(found, path)
			} else {
				other = append(other, path)
			}
			return nil
		})
		skipped = append(skipped, hidden...)
		if err != nil {
			return nil, fmt.Errorf("load spec: %w", err)
		}
		skipped = append(skipped, other...)
		if len(found) == 0 {
			return nil, fmt.Errorf("load spec: no outbox spec (a YAML file with apiVersion %s) in %s: %w", APIVersion, p, ErrInvalidSpec)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	srcs := make([]Source, 0, len(files))
	for _, f := range files {
		data, err := ReadFileLimit(f, MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("load spec: %w", err)
		}
		srcs = append(srcs, Source{Name: f, Data: data})
	}
	srcs = append(srcs, extra...)
	s, err := Parse(srcs...)
	if s != nil {
		s.Skipped = skipped
	}
	return s, err
}

// WalkFolder is the folder walk of Load, for every command that reads a
// folder of inputs: it calls fn with the path and the content (read with
// ReadFileLimit, MaxFileSize) of each regular file below dir whose name
// ends in one of exts (lower case, with the dot; the match ignores case),
// in lexical order. Hidden folders below dir (.git, .github, …) are not
// entered; they are returned, with a trailing separator, for the caller
// to report as skipped. An error of fn or of a read stops the walk.
func WalkFolder(dir string, exts []string, fn func(path string, data []byte) error) (hidden []string, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				hidden = append(hidden, path+string(filepath.Separator))
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains(exts, strings.ToLower(filepath.Ext(path))) {
			return nil
		}
		data, err := ReadFileLimit(path, MaxFileSize)
		if err != nil {
			return err
		}
		return fn(path, data)
	})
	return hidden, err
}

// IsSpec reports whether data looks like an outbox spec file: a YAML
// document whose top level is a mapping with apiVersion, kind, kafka or
// outboxes. Load uses it to pick the spec files of a folder, which may
// also hold other YAML (accepted-breaks.yaml, CI workflows). Data that is
// not valid YAML counts as a spec, so that its syntax error is reported.
func IsSpec(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			return true
		}
		if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
			continue
		}
		m := n.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			switch m.Content[i].Value {
			case "apiVersion", "kind", "kafka", "outboxes":
				return true
			}
		}
	}
}

// MaxFileSize is the largest spec file Load reads (16 MiB); Load reads
// regular files only.
const MaxFileSize = 16 << 20

// Source is one spec file's name and content.
type Source struct {
	Name string
	Data []byte
}

// Parse is Load on in-memory files. Names are used in positions and to
// resolve schema file paths.
func Parse(srcs ...Source) (*Spec, error) {
	var errs ErrorList
	s := &Spec{}
	kafkaFrom := Pos{}
	for _, src := range srcs {
		s.Files = append(s.Files, src.Name)
		docs := parseFile(src, &errs)
		for _, doc := range docs {
			if b := doc.Kafka.Brokers; b != 0 || doc.Kafka.Has("brokers") {
				switch {
				case b < 1:
					errs.add(doc.Kafka.PosOf("brokers"), fmt.Sprintf("kafka.brokers %d: want the number of brokers (at least 1), or leave it out", b))
				case s.Kafka.Brokers != 0 && s.Kafka.Brokers != b:
					errs.add(doc.Kafka.PosOf("brokers"), fmt.Sprintf("kafka.brokers %d conflicts with %d declared at %s", b, s.Kafka.Brokers, s.Kafka.PosOf("brokers")))
				default:
					s.Kafka.Brokers = b
					s.Kafka.setKey("brokers", doc.Kafka.PosOf("brokers"))
				}
			}
			if doc.Kafka.BootstrapServers != "" {
				if s.Kafka.BootstrapServers != "" && s.Kafka.BootstrapServers != doc.Kafka.BootstrapServers {
					errs.add(doc.Kafka.PosOf("bootstrapServers"), fmt.Sprintf("kafka.bootstrapServers %q conflicts with %q declared at %s", doc.Kafka.BootstrapServers, s.Kafka.BootstrapServers, kafkaFrom))
				} else if s.Kafka.BootstrapServers == "" {
					brokers, brokersPos, had := s.Kafka.Brokers, s.Kafka.PosOf("brokers"), s.Kafka.Has("brokers")
					s.Kafka = doc.Kafka
					if had {
						s.Kafka.Brokers = brokers
						s.Kafka.setKey("brokers", brokersPos)
					}
					kafkaFrom = doc.Kafka.PosOf("bootstrapServers")
				}
			}
			for i := range doc.Outboxes {
				o := &doc.Outboxes[i]
				applyDefaults(o, src.Name)
				s.Outboxes = append(s.Outboxes, *o)
			}
		}
	}
	for i := range s.Outboxes {
		check(&s.Outboxes[i], &errs)
		checkRelay(&s.Outboxes[i], &errs)
		checkPartitioning(&s.Outboxes[i], &errs)
		checkDelivery(&s.Outboxes[i], &errs)
		checkConsumers(&s.Outboxes[i], &errs)
		checkRetention(&s.Outboxes[i], &errs)
	}
	checkDuplicates(s, &errs)
	if len(s.Outboxes) == 0 && len(errs) == 0 {
		p := Pos{}
		if len(srcs) > 0 {
			p = Pos{File: strings.Join(s.Files, ", ")}
		}
		errs.add(p, "no outboxes declared: the spec is empty (a spec with no outboxes would let deploy --prune delete every managed connector)")
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return s, nil
}

func parseFile(src Source, errs *ErrorList) []document {
	dec := yaml.NewDecoder(bytes.NewReader(src.Data))
	var docs []document
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			pos, msg := yamlError(src.Name, src.Data, err)
			errs.add(pos, "yaml: "+msg)
			break
		}
		if len(n.Content) == 0 {
			continue
		}
		root := n.Content[0]
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			continue
		}
		d := &decoder{file: src.Name, errs: errs}
		var doc document
		mark := len(*errs)
		d.decode(root, reflect.ValueOf(&doc).Elem(), "")
		if d.tooMany {
			// The document was decoded in part: report the size error
			// alone, not the errors of its half-decoded (zero) values.
			for _, e := range (*errs)[mark:] {
				if strings.HasPrefix(e.Msg, "document too large") {
					*errs = append((*errs)[:mark], e)
					break
				}
			}
			continue
		}
		if root.Kind == yaml.MappingNode {
			switch {
			case !doc.Has("apiVersion"):
				errs.add(doc.Pos, fmt.Sprintf("missing apiVersion (want %q)", APIVersion))
			case doc.APIVersion != APIVersion:
				errs.add(doc.PosOf("apiVersion"), fmt.Sprintf("unsupported apiVersion %q (want %q)", doc.APIVersion, APIVersion))
			}
			if doc.Kind != "" && doc.Kind != Kind {
				errs.add(doc.PosOf("kind"), fmt.Sprintf("unsupported kind %q (want %q)", doc.Kind, Kind))
			}
		}
		docs = append(docs, doc)
	}
	return docs
}

// yamlError is the position and message of a YAML syntax error in src:
// the exact line and column of the offending character or token.
func yamlError(file string, src []byte, err error) (Pos, string) {
	p, msg, _ := LocateYAML(src, err)
	return Pos{File: file, Line: p.Line, Col: p.Col}, msg
}

func strp(s string) *string { return &s }

func applyDefaults(o *Outbox, file string) {
	db := &o.Database
	if db.Connection.Port == 0 && !db.Connection.Has("port") { // port: 0 is an error, not the default
		if db.Kind == Postgres {
			db.Connection.Port = 5432
		} else {
			db.Connection.Port = 3306
		}
	}
	if o.Schema == "" {
		if db.Kind == Postgres {
			o.Schema = "public"
		} else {
			o.Schema = db.Connection.DBName
		}
	}
	if o.Table == "" {
		o.Table = "outbox"
	}
	c := &o.Columns
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	def(&c.ID, "id")
	def(&c.AggregateType, "aggregatetype")
	def(&c.AggregateID, "aggregateid")
	def(&c.Type, "type")
	def(&c.Payload, "payload")
	if c.SchemaVersion == nil {
		c.SchemaVersion = strp("schemaversion")
	}
	def(&o.PayloadFormat, FormatAvro)
	def(&o.Delivery, DeliveryAtLeastOnce)
	def(&o.Routing.ByField, c.AggregateType)
	def(&o.Routing.TopicReplacement, DefaultTopicReplacement)
	if o.Headers.EventType == nil {
		o.Headers.EventType = strp("eventType")
	}
	if o.Headers.SchemaVersion == nil {
		o.Headers.SchemaVersion = strp("schemaVersion")
	}
	if c.SchemaVersionColumn() == "" {
		o.Headers.SchemaVersion = strp("")
	}
	for i := range o.Placements {
		def(&o.Placements[i].Alias, o.Placements[i].Column)
	}
	dir := filepath.Dir(file)
	for i := range o.Events {
		e := &o.Events[i]
		def(&e.SubjectStrategy, TopicRecordNameStrategy)
		for j := range e.Versions {
			v := &e.Versions[j]
			if v.Schema != "" {
				if filepath.IsAbs(v.Schema) {
					v.SchemaPath = v.Schema
				} else {
					v.SchemaPath = filepath.Join(dir, v.Schema)
				}
			}
		}
	}
	k := &o.Connector
	if o.Name != "" {
		def(&k.Name, o.Name+"-outbox")
		def(&k.TopicPrefix, o.Name)
	}
	def(&k.Profile, ProfileLatency)
	def(&k.Snapshot, "no_data")
	def(&k.State, StateRunning)
	def(&k.Heartbeat, DefaultHeartbeat)
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

func check(o *Outbox, errs *ErrorList) {
	if o.Name == "" {
		errs.add(o.Pos, "outbox: name is required")
	} else if !nameRe.MatchString(o.Name) {
		errs.add(o.PosOf("name"), fmt.Sprintf("outbox name %q: use letters, digits, '_', '.', '-'", o.Name))
	}
	db := &o.Database
	if !o.Has("database") {
		errs.add(o.Pos, fmt.Sprintf("outbox %q: database is required", o.Name))
		return
	}
	if !oneOf(db.Kind, Postgres, MySQL, MariaDB) {
		errs.add(db.PosOf("kind"), fmt.Sprintf("database.kind %q: want postgres, mysql or mariadb", db.Kind))
	}
	cn := &db.Connection
	if cn.Host == "" {
		errs.add(cn.PosOf("host"), fmt.Sprintf("outbox %q: database.connection.host is required", o.Name))
	}
	if cn.User == "" {
		errs.add(cn.PosOf("user"), fmt.Sprintf("outbox %q: database.connection.user is required", o.Name))
	}
	if db.Kind == Postgres && cn.DBName == "" {
		errs.add(cn.PosOf("dbname"), fmt.Sprintf("outbox %q: database.connection.dbname is required for postgres", o.Name))
	}
	if db.Kind != Postgres && o.Schema == "" {
		errs.add(cn.PosOf("dbname"), fmt.Sprintf("outbox %q: set database.connection.dbname or schema (the database holding the outbox table)", o.Name))
	}
	if (cn.Port < 1 || cn.Port > 65535) && !(cn.Port == 0 && errs.at(cn.PosOf("port"))) {
		errs.add(cn.PosOf("port"), fmt.Sprintf("database.connection.port %d out of range", cn.Port))
	}
	if cn.Password != "" {
		if _, err := ParseSecret(cn.Password); err != nil {
			errs.add(cn.PosOf("password"), err.Error())
		}
	}
	if !oneOf(o.PayloadFormat, FormatAvro, FormatJSON) {
		errs.add(o.PosOf("payloadFormat"), fmt.Sprintf("payloadFormat %q: want avro or json", o.PayloadFormat))
	}
	k := &o.Connector
	if !oneOf(k.Profile, ProfileLatency, ProfileThroughput) {
		errs.add(k.PosOf("profile"), fmt.Sprintf("connector.profile %q: want latency or throughput", k.Profile))
	}
	if !oneOf(k.State, StateRunning, StatePaused, StateStopped) {
		errs.add(k.PosOf("state"), fmt.Sprintf("connector.state %q: want running, paused or stopped", k.State))
	}
	switch hb := strings.TrimSpace(k.Heartbeat); hb {
	case "0", "off":
		k.HeartbeatInterval = 0
	default:
		d, err := time.ParseDuration(hb)
		switch {
		case err != nil:
			errs.add(k.PosOf("heartbeat"), fmt.Sprintf("connector.heartbeat %q: want a duration such as 10s or 1m, or off", k.Heartbeat))
		case d < time.Second || d%time.Millisecond != 0:
			errs.add(k.PosOf("heartbeat"), fmt.Sprintf("connector.heartbeat %q: want at least 1s in whole milliseconds, or off", k.Heartbeat))
		default:
			k.HeartbeatInterval = d
		}
	}
	if k.ServerID < 0 || k.ServerID > 4294967295 || (k.ServerID == 0 && k.Has("serverId") && !errs.at(k.PosOf("serverId"))) {
		errs.add(k.PosOf("serverId"), fmt.Sprintf("connector.serverId %d: want 1..4294967295", k.ServerID))
	}
	for key := range k.Overrides {
		if strings.TrimSpace(key) == "" {
			errs.add(k.PosOf("overrides"), "connector.overrides: empty key")
		}
	}
	if k.Has("overrides") {
		keys := make([]string, 0, len(k.Overrides))
		for key := range k.Overrides {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			if !IsSecretKey(key) {
				continue
			}
			if key == "database.password" {
				if p := k.Overrides[key]; p != "" {
					if _, err := ParseSecret(p); err != nil {
						errs.add(k.PosOf("overrides.database.password"), err.Error())
					}
				}
				continue
			}
			if err := CheckSecretValue(key, k.Overrides[key]); err != nil {
				errs.add(k.PosOf("overrides."+key), "connector.overrides."+err.Error())
			}
		}
	}
	for i := range o.Placements {
		p := &o.Placements[i]
		if p.Column == "" {
			errs.add(p.Pos, "placements: column is required")
		}
	}
	types := map[string]Pos{}
	for i := range o.Events {
		e := &o.Events[i]
		if e.Name == "" {
			errs.add(e.Pos, "events: name is required")
		} else if prev, ok := types[e.Name]; ok {
			errs.add(e.PosOf("name"), fmt.Sprintf("event type %q declared twice (first at %s)", e.Name, prev))
		} else {
			types[e.Name] = e.PosOf("name")
		}
		if !oneOf(e.SubjectStrategy, TopicRecordNameStrategy, TopicNameStrategy, RecordNameStrategy) {
			errs.add(e.PosOf("subjectStrategy"), fmt.Sprintf("subjectStrategy %q: want TopicRecordNameStrategy, TopicNameStrategy or RecordNameStrategy", e.SubjectStrategy))
		}
		if len(e.Versions) == 0 {
			errs.add(e.Pos, fmt.Sprintf("event type %q: at least one version is required", e.Name))
		}
		majors := map[int]bool{}
		for j := range e.Versions {
			v := &e.Versions[j]
			if v.Major < 1 {
				errs.add(v.PosOf("major"), fmt.Sprintf("event type %q: major version must be >= 1", e.Name))
			} else if majors[v.Major] {
				errs.add(v.PosOf("major"), fmt.Sprintf("event type %q: major version %d declared twice", e.Name, v.Major))
			}
			majors[v.Major] = true
			if v.Schema == "" {
				errs.add(v.Pos, fmt.Sprintf("event type %q v%d: schema file is required", e.Name, v.Major))
			}
		}
	}
}

func checkDuplicates(s *Spec, errs *ErrorList) {
	outboxes := map[string]Pos{}
	connectors := map[string]Pos{}
	for i := range s.Outboxes {
		o := &s.Outboxes[i]
		if o.Name != "" {
			if prev, ok := outboxes[o.Name]; ok {
				errs.add(o.PosOf("name"), fmt.Sprintf("outbox %q declared twice: here and at %s", o.Name, prev))
			} else {
				outboxes[o.Name] = o.PosOf("name")
			}
		}
		if n := o.Connector.Name; n != "" {
			p := o.Connector.PosOf("name")
			if !o.Connector.Has("name") {
				p = o.PosOf("name")
			}
			if prev, ok := connectors[n]; ok {
				errs.add(p, fmt.Sprintf("connector %q declared twice: here and at %s", n, prev))
			} else {
				connectors[n] = p
			}
		}
	}
}
