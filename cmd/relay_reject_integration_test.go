//go:build integration

package cmd_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/internal/itest"
	"github.com/outboxctl/outboxctl/spec"
)

// TestCLIRelayRejectedRecordExit1: `outboxctl relay` (not --once) stops
// with exit 1 on a record the broker rejects for good (too large for its
// topic, errors.tolerance=none), naming the row; the row stays.
func TestCLIRelayRejectedRecordExit1(t *testing.T) {
	s := itest.Require(t, itest.Kafka, itest.Postgres)
	sfx := strings.ToLower(itest.Suffix())
	dbName := "relay_rej_" + sfx
	db := itest.PostgresDatabase(t, s.PostgresDSN, dbName)
	path := relaySpec(t, dbName, "outbox", sfx)
	sp, err := spec.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	itest.CreateOutboxTable(t, db, &sp.Outboxes[0])
	topic := "relay." + sfx + ".Order"
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": s.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	res, err := admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: 1, ReplicationFactor: 1, Config: map[string]string{"max.message.bytes": "1024"}}})
	cancel()
	admin.Close()
	if err != nil || res[0].Error.Code() != kafka.ErrNoError {
		t.Fatalf("create topic %s: %v %v", topic, err, res)
	}
	t.Cleanup(func() { itest.DeleteTopics(t, s.BootstrapServers, topic) })
	id := itest.UUID(t)
	if _, err := db.Exec(`INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, schemaversion) VALUES ($1, 'Order', '1', 'OrderCreated', $2, 1)`,
		id, fmt.Sprintf(`{"pad": %q}`, strings.Repeat("x", 4000))); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runCLI(t, nil, "relay", "-f", path, "--poll-interval", "50ms", "--bootstrap-servers", s.BootstrapServers)
		done <- result{code, out, errOut}
	}()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.errOut, "the broker rejected its record for topic "+topic) || !strings.Contains(r.errOut, id) {
			t.Errorf("relay: exit %d, stdout %q, stderr %q; want exit 1 naming row %s and topic %s", r.code, r.out, r.errOut, id, topic)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("relay did not stop within 30s on a rejected record")
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM outbox").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows left (%v), want the rejected row", n, err)
	}
}
