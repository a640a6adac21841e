//go:build integration

package exporter_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/exporter"
	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/spec"
)

// TestExporterSlotStalled runs the exporter against a real PostgreSQL
// slot whose consumer does not advance (a pgoutput slot nobody streams
// from) with a fake clock: outbox_pg_slot_confirmed_flush_stalled_seconds
// is 0 on the first scrape, counts the clock while rows are written and
// the slot stands still, and is 0 again once the slot's position moves.
// outbox_pg_slot_safe_wal_size_bytes follows max_slot_wal_keep_size:
// absent when it is unlimited (-1), else the slot's safe_wal_size.
func TestExporterSlotStalled(t *testing.T) {
	s := itest.Require(t, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "exps_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	sp, err := spec.Parse(spec.Source{Name: "outbox.yaml", Data: []byte(fmt.Sprintf(`apiVersion: outboxctl.dev/v1alpha1
outboxes:
  - name: exps%s
    database:
      kind: postgres
      connection: {host: localhost, port: 5432, user: postgres, dbname: %s}
    payloadFormat: json
    columns: {timestamp: created_at}
    connector: {name: exps-%s}
`, sfx, dbName, sfx))})
	if err != nil {
		t.Fatal(err)
	}
	o := &sp.Outboxes[0]
	itest.CreateOutboxTable(t, db, o)
	slot := "exps_" + sfx
	if _, err := db.Exec(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot); err != nil {
		t.Fatal(err)
	}
	var keep string
	if err := db.QueryRow(`SHOW max_slot_wal_keep_size`).Scan(&keep); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	tick := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	write := func() {
		t.Helper()
		if _, err := db.Exec(`INSERT INTO ` + o.QualifiedTable() + ` (id, aggregatetype, aggregateid, type, payload, schemaversion)
			VALUES (gen_random_uuid(), 'Order', '1', 'Created', '{}', 1)`); err != nil {
			t.Fatal(err)
		}
	}
	c := newCollector(t, exporter.Config{Now: clock, Targets: []exporter.Target{{Outbox: o, DB: db, Slot: slot}}})
	stalledKey := "outbox_pg_slot_confirmed_flush_stalled_seconds{outbox=" + o.Name + ",slot=" + slot + "}"
	safeKey := "outbox_pg_slot_safe_wal_size_bytes{outbox=" + o.Name + ",slot=" + slot + "}"
	check := func(step string, want float64) map[string]float64 {
		t.Helper()
		got, _ := scrape(t, c)
		if v := got["outbox_up{outbox="+o.Name+",target=database}"]; v != 1 {
			t.Fatalf("%s: database target down: %v", step, got)
		}
		if v, ok := got[stalledKey]; !ok || v != want {
			t.Errorf("%s: %s = %v (present %v), want %v", step, stalledKey, v, ok, want)
		}
		safe, ok := got[safeKey]
		if keep == "-1" && ok {
			t.Errorf("%s: %s = %v with max_slot_wal_keep_size unlimited, want no series", step, safeKey, safe)
		}
		if keep != "-1" && (!ok || safe <= 0) {
			t.Errorf("%s: %s = %v (present %v) with max_slot_wal_keep_size %s, want the headroom", step, safeKey, safe, ok, keep)
		}
		return got
	}

	write()
	check("first scrape", 0)
	tick(5 * time.Minute)
	write()
	got := check("slot stands still 5m", 300)
	if v := got["outbox_pg_slot_confirmed_flush_lag_bytes{outbox="+o.Name+",slot="+slot+"}"]; v <= 0 {
		t.Errorf("confirmed flush lag %v, want WAL past the slot", v)
	}
	tick(2 * time.Minute)
	write()
	check("slot stands still 7m", 420)

	// The consumer confirms: the slot moves, the stall is over.
	if _, err := db.Exec(`SELECT pg_replication_slot_advance($1, pg_current_wal_lsn())`, slot); err != nil {
		t.Fatal(err)
	}
	write()
	tick(time.Minute)
	check("slot advanced", 0)
	tick(time.Minute)
	write()
	check("stands still again 1m", 60)
}
