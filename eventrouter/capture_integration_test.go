//go:build integration

package eventrouter_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/go-sql-driver/mysql"

	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/eventrouter"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// TestInet6TaskFails: a MariaDB table with an inet6 column fails the real
// 3.5 connector's task at the schema snapshot (its DDL parser reads SHOW
// CREATE TABLE and has no inet6), and route preview reports the same task
// failure (#31). The database and table are created and dropped with
// binary logging off: logged, such DDL fails every MariaDB connector that
// streams from the server. The connector snapshots only its own database's
// table (schema.history.internal.store.only.captured.tables.ddl).
func TestInet6TaskFails(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Connect, itest.MariaDB)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg, err := mysql.ParseDSN(s.MariaDBDSN)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_log_bin = 0"); err != nil {
		t.Fatal(err)
	}
	n, _ := rand.Int(rand.Reader, big.NewInt(1<<30))
	name := fmt.Sprintf("d2_inet_%d", n.Int64())
	for _, q := range []string{
		"CREATE DATABASE " + name,
		"CREATE TABLE " + name + ".outbox (id varchar(36) NOT NULL PRIMARY KEY, aggregatetype varchar(255) NOT NULL, aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload longtext, addr inet6)",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if _, err := conn.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Logf("cleanup: %v", err)
		}
	}()

	cc, err := connect.NewClient(s.ConnectURL)
	if err != nil {
		t.Fatal(err)
	}
	connector := strings.ReplaceAll("er-d2-inet-"+name, "_", "-")
	conf := map[string]string{
		"connector.class":   "io.debezium.connector.mariadb.MariaDbConnector",
		"tasks.max":         "1",
		"database.hostname": s.ConnectMariaDBHost, "database.port": s.ConnectMariaDBPort,
		"database.user": "root", "database.password": "",
		"database.server.id":    fmt.Sprint(200000 + n.Int64()%100000),
		"topic.prefix":          strings.ReplaceAll(name, "_", ""),
		"database.include.list": name,
		"table.include.list":    name + ".outbox",
		"snapshot.mode":         "no_data",
		"schema.history.internal.kafka.bootstrap.servers":        s.ConnectBootstrap(),
		"schema.history.internal.kafka.topic":                    name + ".history",
		"schema.history.internal.store.only.captured.tables.ddl": "true",
		"include.schema.changes":                                 "false",
		"transforms":                                             "outbox",
		"transforms.outbox.type":                                 eventrouter.EventRouterClass,
	}
	if _, err := cc.CreateConnector(ctx, connector, conf, ""); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cc.Delete(context.Background(), connector)
		if admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers}); err == nil {
			dctx, dcancel := context.WithTimeout(context.Background(), 30*time.Second)
			_, _ = admin.DeleteTopics(dctx, []string{name + ".history"})
			dcancel()
			admin.Close()
		}
	}()
	var trace string
	for until := time.Now().Add(90 * time.Second); time.Now().Before(until); time.Sleep(time.Second) {
		st, err := cc.Status(ctx, connector)
		if err == nil && len(st.Tasks) > 0 && st.Tasks[0].State == "FAILED" {
			trace = st.Tasks[0].Trace
			break
		}
	}
	if trace == "" {
		t.Fatal("the real connector's task did not fail within 90 s")
	}

	// route preview's task failure
	sr, err := eventrouter.ParseSampleRow(strings.NewReader(`{"op":"c","table":"` + name + `.outbox","columns":{"id":"varchar(36)","addr":"inet6"},"row":{"id":"1","aggregatetype":"Order","aggregateid":"1","type":"T","payload":"{}","addr":"::1"},"primaryKey":["id"]}`))
	if err != nil {
		t.Fatal(err)
	}
	ecfg, err := eventrouter.ParseConfigWithOptions(conf, "outbox", eventrouter.ParseOptions{EventRouterVersion: eventrouter.Version35})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sr.ChangeEventFor(ecfg)
	if err != nil {
		t.Fatal(err)
	}
	_, rerr := eventrouter.Route(ecfg, ev)
	var te *eventrouter.TaskError
	if !errors.As(rerr, &te) {
		t.Fatalf("preview: %v, want a task failure", rerr)
	}
	prefix, _, _ := strings.Cut(te.Message, "'CREATE TABLE")
	for _, want := range []string{te.Exception + ": " + prefix + "'CREATE TABLE `outbox`", "addr` inet6", "no viable alternative at input"} {
		if !strings.Contains(trace, want) {
			t.Errorf("the real task's trace lacks %q:\n%.1500s", want, trace)
		}
	}
	t.Logf("real task FAILED: %.300s", trace)
	t.Logf("preview: %v", rerr)
}
