// Command app is the service side of `make demo`: the orders service writes
// an order and its OrderCreated event (Avro) in one PostgreSQL transaction,
// the payments service a payment and its PaymentCaptured event (JSON) in one
// MariaDB transaction, with the outbox writer; a rolled-back order shows that
// nothing escapes an aborted transaction. A billing consumer built with the
// consumer SDK reads the routed topics, decodes and resolves the events,
// records invoices in its own database in the inbox transaction, and prints
// each event it handles. It exits 0 when every committed event was handled
// and the rolled-back one was not.
//
// It reads the spec given with -f and the OUTBOX_* endpoints (see the README).
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/kafkaclient"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

// OrderCreated is the billing service's reader view of the event.
type OrderCreated struct {
	OrderID     string `avro:"orderId"`
	Customer    string `avro:"customer"`
	AmountCents int64  `avro:"amountCents"`
	Currency    string `avro:"currency"`
}

// PaymentCaptured arrives as JSON.
type PaymentCaptured struct {
	PaymentID   string `json:"paymentId"`
	OrderID     string `json:"orderId"`
	AmountCents int64  `json:"amountCents"`
}

func main() {
	specPath := flag.String("f", "examples/demo/outbox.yaml", "outbox spec")
	n := flag.Int("orders", 3, "orders to place")
	timeout := flag.Duration("timeout", 90*time.Second, "how long to wait for the consumer")
	flag.Parse()
	if err := run(*specPath, *n, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(specPath string, n int, timeout time.Duration) error {
	ctx := context.Background()
	st := endpointsFromEnv()
	sp, err := spec.Load(specPath)
	if err != nil {
		return err
	}
	orders, payments := find(sp, "orders"), find(sp, "payments")
	if orders == nil || payments == nil {
		return errors.New("the spec needs the outboxes orders and payments")
	}

	// The service side: the outbox databases and writers.
	ordersDB, err := sql.Open("pgx", postgresDSNWithDatabase(st.PostgresDSN, orders.Database.Connection.DBName))
	if err != nil {
		return err
	}
	defer ordersDB.Close()
	paymentsDSN, err := mysqlDSNWithDatabase(st.MariaDBDSN, payments.Database.Connection.DBName)
	if err != nil {
		return err
	}
	paymentsDB, err := sql.Open("mysql", paymentsDSN)
	if err != nil {
		return err
	}
	defer paymentsDB.Close()
	if _, err := ordersDB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, customer text NOT NULL, amount_cents bigint NOT NULL)`); err != nil {
		return err
	}
	if _, err := paymentsDB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS payments (id varchar(64) PRIMARY KEY, order_id varchar(64) NOT NULL, amount_cents bigint NOT NULL)`); err != nil {
		return err
	}
	ordersOut, err := outbox.NewWriter(outbox.TableFor(orders))
	if err != nil {
		return err
	}
	paymentsOut, err := outbox.NewWriter(outbox.TableFor(payments))
	if err != nil {
		return err
	}

	// The Avro encoder of OrderCreated v1, with the id `schema register` gave it.
	cat, err := schemas.BuildCatalog(sp)
	if err != nil {
		return err
	}
	var orderEntry *schemas.CatalogEntry
	for _, e := range cat.Entries {
		if e.EventType == "OrderCreated" && e.Major == 1 {
			orderEntry = e
		}
	}
	if orderEntry == nil {
		return errors.New("OrderCreated v1 is not in the spec")
	}
	reg, err := registry.NewClient(st.SchemaRegistryURL)
	if err != nil {
		return err
	}
	registered, err := reg.Lookup(ctx, orderEntry.Subject, string(orderEntry.Source))
	if err != nil {
		return fmt.Errorf("look up %s (run `outboxctl schema register` first): %w", orderEntry.Subject, err)
	}
	enc, err := outbox.NewAvroEncoderFromSchema(uint32(registered.ID), registered.Schema)
	if err != nil {
		return err
	}

	// The consumer side: billing, with its own database for the inbox.
	billingDB, err := ensurePostgresDB(ctx, st.PostgresDSN, "demo_billing")
	if err != nil {
		return err
	}
	defer billingDB.Close()
	store, err := inbox.NewPostgres(billingDB, "inbox")
	if err != nil {
		return err
	}
	if err := store.CreateTable(ctx); err != nil {
		return err
	}
	if _, err := billingDB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS invoices (order_id text PRIMARY KEY, amount_cents bigint, currency text, paid boolean NOT NULL DEFAULT false)`); err != nil {
		return err
	}

	var mu sync.Mutex
	handled := map[string]bool{}
	router, err := consumer.NewRouter(consumer.RouterConfig{
		Schemas: consumer.RegistryByID(reg), Inbox: store, // ConsumerGroup: the Consumer's GroupID
	})
	if err != nil {
		return err
	}
	router.Use(consumer.Retry{MaxAttempts: 5, InitialInterval: 100 * time.Millisecond}.Middleware, consumer.Recover())
	err = consumer.Handle(router, "OrderCreated", 1, func(ctx context.Context, ev consumer.Event[OrderCreated]) error {
		if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO invoices (order_id, amount_cents, currency) VALUES ($1, $2, $3)
			 ON CONFLICT (order_id) DO UPDATE SET amount_cents = EXCLUDED.amount_cents, currency = EXCLUDED.currency`,
			ev.Payload.OrderID, ev.Payload.AmountCents, ev.Payload.Currency); err != nil {
			return err
		}
		fmt.Printf("billing <- %-16s v%d key=%s id=%s schema-id=%d  %s ordered %d %s\n",
			ev.EventType, ev.Version, ev.AggregateID, ev.EventID, ev.SchemaID, ev.Payload.Customer, ev.Payload.AmountCents, ev.Payload.Currency)
		mu.Lock()
		handled[ev.EventID] = true
		mu.Unlock()
		return nil
	}, consumer.ReaderSchema(string(orderEntry.Source)))
	if err != nil {
		return err
	}
	err = consumer.Handle(router, "PaymentCaptured", 1, func(ctx context.Context, ev consumer.Event[PaymentCaptured]) error {
		// Topics are not ordered with each other: a payment may arrive first.
		if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO invoices (order_id, paid) VALUES ($1, true)
			 ON CONFLICT (order_id) DO UPDATE SET paid = true`, ev.Payload.OrderID); err != nil {
			return err
		}
		fmt.Printf("billing <- %-16s v%d key=%s id=%s json        order %s paid %d\n",
			ev.EventType, ev.Version, ev.AggregateID, ev.EventID, ev.Payload.OrderID, ev.Payload.AmountCents)
		mu.Lock()
		handled[ev.EventID] = true
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	topics := []string{orderEntry.Topic, "outbox.event.Payment"}
	for _, e := range cat.Entries {
		if e.EventType == "PaymentCaptured" {
			topics[1] = e.Topic
		}
	}
	cons, err := consumer.NewConsumer(consumer.ConsumerConfig{
		Client:  kafkaclient.Config{BootstrapServers: st.BootstrapServers},
		GroupID: "demo-billing", Topics: topics,
		CommitInterval: 500 * time.Millisecond,
		OnError:        func(err error) { fmt.Fprintln(os.Stderr, "consumer:", err) },
	}, router)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- cons.Run(cctx) }()

	// Place the orders and capture the payments: business row and event in
	// one transaction each.
	run := time.Now().UTC().Format("150405")
	var want []string
	for i := 1; i <= n; i++ {
		orderID := fmt.Sprintf("order-%s-%d", run, i)
		amount := int64(1000 * i)
		tx, err := ordersDB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO orders VALUES ($1, $2, $3)`, orderID, "customer-"+fmt.Sprint(i), amount); err != nil {
			tx.Rollback()
			return err
		}
		payload, err := enc.Encode(map[string]any{"orderId": orderID, "customer": "customer-" + fmt.Sprint(i), "amountCents": amount, "currency": "EUR"})
		if err != nil {
			tx.Rollback()
			return err
		}
		id, err := ordersOut.Write(ctx, tx, outbox.Event{AggregateType: "Order", AggregateID: orderID, Type: "OrderCreated", SchemaVersion: 1, Payload: payload})
		if err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		fmt.Printf("orders   -> OrderCreated     %s in the orders transaction (event %s)\n", orderID, id)
		want = append(want, id)

		ptx, err := paymentsDB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		paymentID := "pay-" + orderID
		if _, err := ptx.ExecContext(ctx, `INSERT INTO payments VALUES (?, ?, ?)`, paymentID, orderID, amount); err != nil {
			ptx.Rollback()
			return err
		}
		pid, err := paymentsOut.Write(ctx, ptx, outbox.Event{AggregateType: "Payment", AggregateID: paymentID, Type: "PaymentCaptured", SchemaVersion: 1,
			Payload: []byte(fmt.Sprintf(`{"paymentId":%q,"orderId":%q,"amountCents":%d}`, paymentID, orderID, amount))})
		if err != nil {
			ptx.Rollback()
			return err
		}
		if err := ptx.Commit(); err != nil {
			return err
		}
		fmt.Printf("payments -> PaymentCaptured  %s in the payments transaction (event %s)\n", paymentID, pid)
		want = append(want, pid)
	}
	// An order whose transaction rolls back: its event must never arrive.
	tx, err := ordersDB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	payload, _ := enc.Encode(map[string]any{"orderId": "order-rolled-back", "customer": "nobody", "amountCents": int64(1), "currency": "EUR"})
	ghost, err := ordersOut.Write(ctx, tx, outbox.Event{AggregateType: "Order", AggregateID: "order-rolled-back", Type: "OrderCreated", SchemaVersion: 1, Payload: payload})
	if err != nil {
		return err
	}
	tx.Rollback()
	fmt.Printf("orders   -> OrderCreated     order-rolled-back, transaction rolled back (event %s)\n", ghost)

	deadline := time.Now().Add(timeout)
	for {
		mu.Lock()
		missing := 0
		for _, id := range want {
			if !handled[id] {
				missing++
			}
		}
		ghostSeen := handled[ghost]
		mu.Unlock()
		if ghostSeen {
			cancel()
			<-done
			return fmt.Errorf("the rolled-back event %s was delivered", ghost)
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			return fmt.Errorf("%d of %d events not handled within %s", missing, len(want), timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		return err
	}
	var invoices, paid int
	if err := billingDB.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE paid) FROM invoices WHERE order_id LIKE $1`, "order-"+run+"-%").Scan(&invoices, &paid); err != nil {
		return err
	}
	fmt.Printf("\nall %d events handled once; billing has %d invoices of this run, %d paid; the rolled-back order never arrived\n", len(want), invoices, paid)
	return nil
}

func find(sp *spec.Spec, name string) *spec.Outbox {
	for i := range sp.Outboxes {
		if sp.Outboxes[i].Name == name {
			return &sp.Outboxes[i]
		}
	}
	return nil
}

func ensurePostgresDB(ctx context.Context, adminDSN, name string) (*sql.DB, error) {
	admin, err := sql.Open("pgx", adminDSN)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			return nil, err
		}
	}
	return sql.Open("pgx", postgresDSNWithDatabase(adminDSN, name))
}

// endpoints are the OUTBOX_* endpoints the demo reads (the same variables and
// native-stack defaults as outboxctl), in a few local lines so that this
// directory can be copied into another module.
type endpoints struct {
	BootstrapServers, SchemaRegistryURL, PostgresDSN, MariaDBDSN string
}

func endpointsFromEnv() endpoints {
	get := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	return endpoints{
		BootstrapServers:  get("OUTBOX_BOOTSTRAP_SERVERS", "127.0.0.1:19092"),
		SchemaRegistryURL: get("OUTBOX_SCHEMA_REGISTRY_URL", "http://127.0.0.1:18081/apis/ccompat/v7"),
		PostgresDSN:       get("OUTBOX_PG_DSN", "postgres://postgres@127.0.0.1:15432/postgres?sslmode=disable"),
		MariaDBDSN:        get("OUTBOX_MARIADB_DSN", "root@tcp(127.0.0.1:13306)/"),
	}
}

// postgresDSNWithDatabase points a PostgreSQL DSN, in URL form or key=value
// form, at database db.
func postgresDSNWithDatabase(dsn, db string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db
}

// mysqlDSNWithDatabase points a go-sql-driver DSN at database db.
func mysqlDSNWithDatabase(dsn, db string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("mysql dsn: %w", err)
	}
	cfg.DBName = db
	return cfg.FormatDSN(), nil
}
