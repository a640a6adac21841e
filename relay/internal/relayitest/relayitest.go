// Package relayitest holds the helpers the integration tests of relay and
// relay/cutover share.
package relayitest

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
	"github.com/outboxctl/outboxctl/spec"
)

// SpecOutbox is a PostgreSQL outbox made from a spec: database
// relay_<tag>_<sfx> with its table (and, with notify, the NOTIFY trigger on
// channel <tag>_<sfx>), topic relay.<sfx>.Order, and the connector config
// generated for it (connector relay-<tag>-<sfx>, topic prefix <tag><sfx>).
type SpecOutbox struct {
	DB                 *sql.DB
	DBName, Sfx, Topic string
	Conf               map[string]string
	Name               string // the connector's
	Outbox             *spec.Outbox
}

// NewSpecOutbox makes a SpecOutbox on the real stack s.
func NewSpecOutbox(t *testing.T, s settings.Settings, tag string, notify bool) *SpecOutbox {
	t.Helper()
	o := &SpecOutbox{Sfx: strings.ToLower(itest.Suffix())}
	o.DBName = "relay_" + tag + "_" + o.Sfx
	o.DB = itest.PostgresDatabase(t, s.PostgresDSN, o.DBName)
	o.Topic = "relay." + o.Sfx + ".Order"
	doc := fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: %[1]s%[2]s
    database:
      kind: postgres
      connection: {host: %[3]s, port: %[4]s, user: postgres, dbname: %[5]s}
    payloadFormat: json
    routing:
      topicReplacement: relay.%[2]s.${routedByValue}
    connector: {name: relay-%[1]s-%[2]s, topicPrefix: %[1]s%[2]s, heartbeat: 1s}
`, tag, o.Sfx, s.ConnectPostgresHost, s.ConnectPostgresPort, o.DBName)
	if notify {
		doc += fmt.Sprintf("    relay: {notify: %s_%s}\n", tag, o.Sfx)
	}
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	o.Outbox = &sp.Outboxes[0]
	itest.CreateOutboxTable(t, o.DB, o.Outbox)
	itest.CreateTopic(t, s.BootstrapServers, o.Topic)
	cs, err := connectorconfig.Generate(sp, connectorconfig.Options{BootstrapServers: s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	o.Conf, o.Name = cs[0].Config, cs[0].Name
	return o
}

// ReadAll reads topic from the start until want distinct event ids were
// seen and then 2 s passed without a record (the duplicates' tail), at most
// 90 s, calling each for every record (first: its id's first occurrence).
// It returns how often each id was seen.
func ReadAll(t *testing.T, boot, topic string, want int, each func(m *kafka.Message, first bool)) map[string]int {
	t.Helper()
	cons, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": boot, "group.id": "read-" + itest.Suffix(), "auto.offset.reset": "earliest", "enable.auto.commit": false})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	if err := cons.Subscribe(topic, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	quiet := 0
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); {
		m, ok := cons.Poll(200).(*kafka.Message)
		if !ok || m.TopicPartition.Error != nil {
			if quiet++; len(seen) >= want && quiet >= 10 {
				break
			}
			continue
		}
		quiet = 0
		id, _ := itest.Header(m, "id")
		seen[id]++
		each(m, seen[id] == 1)
	}
	return seen
}
