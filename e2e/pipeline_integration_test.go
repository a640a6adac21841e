//go:build integration

package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/internal/settings"
)

// event is one outbox row the tests insert.
type event struct {
	id, aggregateID, typ, payload string
}

// pipelineCase describes how to run the outbox pipeline on one database.
type pipelineCase struct {
	name     string
	services []itest.Service
	// setup creates the database and outbox table and returns the
	// connector config and an insert statement with placeholders.
	setup func(t *testing.T, s settings.Settings, sfx string) (db *sql.DB, connector map[string]string, insert string)
}

// eventRouter is the EventRouter configuration shared by every database:
// values and keys as plain strings, so the test sees the exact bytes.
func eventRouter() map[string]string {
	return map[string]string{
		"transforms":             "outbox",
		"transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
		"transforms.outbox.table.expand.json.payload": "false",
		"key.converter":        "org.apache.kafka.connect.storage.StringConverter",
		"value.converter":      "org.apache.kafka.connect.storage.StringConverter",
		"tombstones.on.delete": "false",
		"snapshot.mode":        "no_data",
	}
}

func TestOutboxPipeline(t *testing.T) {
	cases := []pipelineCase{
		{
			name:     "postgres",
			services: []itest.Service{itest.Kafka, itest.Connect, itest.Postgres},
			setup: func(t *testing.T, s settings.Settings, sfx string) (*sql.DB, map[string]string, string) {
				dbName := "e2e_pg_" + sfx
				db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
				mustExec(t, db, `CREATE TABLE public.outbox (
					id uuid PRIMARY KEY,
					aggregatetype varchar(255) NOT NULL,
					aggregateid varchar(255) NOT NULL,
					type varchar(255) NOT NULL,
					payload jsonb)`)
				cfg := itest.MergeConfigs(eventRouter(), map[string]string{
					"connector.class":             "io.debezium.connector.postgresql.PostgresConnector",
					"plugin.name":                 "pgoutput",
					"database.hostname":           s.ConnectPostgresHost,
					"database.port":               s.ConnectPostgresPort,
					"database.user":               "postgres",
					"database.password":           "unused",
					"database.dbname":             dbName,
					"topic.prefix":                "e2epg" + sfx,
					"slot.name":                   "e2e_pg_" + sfx,
					"publication.name":            "e2e_pub_" + sfx,
					"publication.autocreate.mode": "filtered",
					"table.include.list":          "public.outbox",
				})
				return db, cfg, `INSERT INTO public.outbox (id, aggregatetype, aggregateid, type, payload) VALUES ($1, $2, $3, $4, $5::jsonb)`
			},
		},
		{
			name:     "mariadb",
			services: []itest.Service{itest.Kafka, itest.Connect, itest.MariaDB},
			setup: func(t *testing.T, s settings.Settings, sfx string) (*sql.DB, map[string]string, string) {
				dbName := "e2e_maria_" + sfx
				db := itest.MariaDBDatabase(t, s.MariaDBDSN, dbName)
				mustExec(t, db, `CREATE TABLE outbox (
					id varchar(36) PRIMARY KEY,
					aggregatetype varchar(255) NOT NULL,
					aggregateid varchar(255) NOT NULL,
					type varchar(255) NOT NULL,
					payload longtext)`)
				historyTopic := "_e2e-history-" + sfx
				t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, historyTopic) })
				var serverID int
				fmt.Sscanf(sfx[:6], "%x", &serverID)
				cfg := itest.MergeConfigs(eventRouter(), map[string]string{
					"connector.class":       "io.debezium.connector.mariadb.MariaDbConnector",
					"database.hostname":     s.ConnectMariaDBHost,
					"database.port":         s.ConnectMariaDBPort,
					"database.user":         "root",
					"database.password":     "",
					"database.server.id":    fmt.Sprint(100000 + serverID%1000000),
					"topic.prefix":          "e2emaria" + sfx,
					"database.include.list": dbName,
					"table.include.list":    dbName + ".outbox",
					"schema.history.internal.kafka.bootstrap.servers":        s.ConnectBootstrap(),
					"schema.history.internal.kafka.topic":                    historyTopic,
					"schema.history.internal.store.only.captured.tables.ddl": "true",
				})
				return db, cfg, `INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) VALUES (?, ?, ?, ?, ?)`
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := itest.Require(t, tc.services...)
			sfx := itest.Suffix()
			db, cfg, insert := tc.setup(t, s, sfx)

			aggType := "Order" + sfx
			topic := "outbox.event." + aggType
			name := "e2e-" + tc.name + "-" + sfx
			itest.PutConnector(t, s.ConnectURL, name, cfg)
			itest.WaitRunning(t, s.ConnectURL, name, 90*time.Second)

			reader := itest.StreamingReader(t, s.BootstrapServers, topic, func(key string) error {
				_, err := db.Exec(insert, itest.UUID(t), aggType, key, "WarmUp", `{}`)
				return err
			})

			// One transaction: interleaved events of two aggregates.
			var want []event
			for i := 0; i < 6; i++ {
				agg := fmt.Sprintf("order-%d", i%2)
				want = append(want, event{
					id:          itest.UUID(t),
					aggregateID: agg,
					typ:         "OrderLineAdded",
					payload:     fmt.Sprintf(`{"line": %d, "sku": "sku-%d"}`, i, i),
				})
			}
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range want {
				if _, err := tx.Exec(insert, e.id, aggType, e.aggregateID, e.typ, e.payload); err != nil {
					t.Fatalf("insert: %v", err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}

			var got []*kafka.Message
			for len(got) < len(want) {
				m := reader.Next(60 * time.Second)
				if m == nil {
					t.Fatalf("got %d of %d routed events within 60s", len(got), len(want))
				}
				if typ, _ := itest.Header(m, "id"); strings.HasPrefix(string(m.Key), "warmup") || typ == "" {
					continue
				}
				got = append(got, m)
			}
			byID := map[string]event{}
			for _, e := range want {
				byID[e.id] = e
			}
			lastSeen := map[string]int{} // aggregate -> index in want of the last event seen
			for _, m := range got {
				if *m.TopicPartition.Topic != topic {
					t.Errorf("topic = %q, want %q", *m.TopicPartition.Topic, topic)
				}
				id, ok := itest.Header(m, "id")
				if !ok {
					t.Fatalf("message without header id: key=%q headers=%v", m.Key, m.Headers)
				}
				e, ok := byID[id]
				if !ok {
					t.Fatalf("header id %q is not one of the inserted event ids", id)
				}
				if string(m.Key) != e.aggregateID {
					t.Errorf("event %s: key = %q, want aggregate id %q", id, m.Key, e.aggregateID)
				}
				assertJSONEqual(t, string(m.Value), e.payload)
				idx := indexOf(want, id)
				if prev, seen := lastSeen[e.aggregateID]; seen && idx < prev {
					t.Errorf("aggregate %s: event %d arrived after event %d (order per aggregate broken)", e.aggregateID, idx, prev)
				}
				lastSeen[e.aggregateID] = idx
			}
		})
	}
}

func indexOf(evs []event, id string) int {
	for i, e := range evs {
		if e.id == id {
			return i
		}
	}
	return -1
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func assertJSONEqual(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("value %q is not JSON: %v", got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("value = %s, want %s", got, want)
	}
}
