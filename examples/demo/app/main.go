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

// options are the demo's flags.
type options struct {
	SpecPath string        // -f: the outbox spec
	Orders   int           // -orders: orders to place
	Timeout  time.Duration // -timeout: how long to wait for the consumer
}

func main() {
	var opts options
	flag.StringVar(&opts.SpecPath, "f", "examples/demo/outbox.yaml", "outbox spec")
	flag.IntVar(&opts.Orders, "orders", 3, "orders to place")
	flag.DurationVar(&opts.Timeout, "timeout", 90*time.Second, "how long to wait for the consumer")
	flag.Parse()
	if err := run(context.Background(), opts); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run is the demo in its phases: the service side (databases, writers, the
// Avro encoder), the consumer side (billing), the writes, and the wait for
// every committed event and none of the rolled-back one.
func run(ctx context.Context, opts options) error {
	st := endpointsFromEnv()
	sp, err := spec.Load(opts.SpecPath)
	if err != nil {
		return err
	}
	svc, err := openServices(ctx, st, sp)
	if err != nil {
		return err
	}
	defer svc.Close()
	reg, err := registry.NewClient(st.SchemaRegistryURL)
	if err != nil {
		return err
	}
	if err := svc.loadOrderEncoder(ctx, sp, reg); err != nil {
		return err
	}
	b, err := newBilling(ctx, st, reg, svc.orderEntry, svc.paymentTopic)
	if err != nil {
		return err
	}
	defer b.Close()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- b.consumer.Run(cctx) }()

	runID := time.Now().UTC().Format("150405")
	want, err := svc.placeOrders(ctx, runID, opts.Orders)
	if err != nil {
		return err
	}
	ghost, err := svc.rollBackOrder(ctx)
	if err != nil {
		return err
	}
	err = b.wait(want, ghost, opts.Timeout)
	cancel()
	if cerr := <-done; err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	var invoices, paid int
	if err := b.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE paid) FROM invoices WHERE order_id LIKE $1`, "order-"+runID+"-%").Scan(&invoices, &paid); err != nil {
		return err
	}
	fmt.Printf("\nall %d events handled once; billing has %d invoices of this run, %d paid; the rolled-back order never arrived\n", len(want), invoices, paid)
	return nil
}

// services is the service side: the orders (PostgreSQL) and payments
// (MariaDB) databases with their outbox writers, and the Avro encoder of
// OrderCreated v1.
type services struct {
	ordersDB, paymentsDB   *sql.DB
	ordersOut, paymentsOut *outbox.Writer
	enc                    *outbox.AvroEncoder
	orderEntry             *schemas.CatalogEntry
	paymentTopic           string
}

// openServices opens the two outbox databases of the spec's outboxes orders
// and payments, creates their business tables and makes their writers.
func openServices(ctx context.Context, st endpoints, sp *spec.Spec) (_ *services, err error) {
	orders, err := sp.Outbox("orders")
	if err != nil {
		return nil, fmt.Errorf("the spec needs the outboxes orders and payments: %w", err)
	}
	payments, err := sp.Outbox("payments")
	if err != nil {
		return nil, fmt.Errorf("the spec needs the outboxes orders and payments: %w", err)
	}
	svc := &services{}
	defer func() {
		if err != nil {
			svc.Close()
		}
	}()
	if svc.ordersDB, err = sql.Open("pgx", postgresDSNWithDatabase(st.PostgresDSN, orders.Database.Connection.DBName)); err != nil {
		return nil, err
	}
	paymentsDSN, err := mysqlDSNWithDatabase(st.MariaDBDSN, payments.Database.Connection.DBName)
	if err != nil {
		return nil, err
	}
	if svc.paymentsDB, err = sql.Open("mysql", paymentsDSN); err != nil {
		return nil, err
	}
	if _, err := svc.ordersDB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, customer text NOT NULL, amount_cents bigint NOT NULL)`); err != nil {
		return nil, err
	}
	if _, err := svc.paymentsDB.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS payments (id varchar(64) PRIMARY KEY, order_id varchar(64) NOT NULL, amount_cents bigint NOT NULL)`); err != nil {
		return nil, err
	}
	if svc.ordersOut, err = outbox.NewWriter(outbox.TableFor(orders)); err != nil {
		return nil, err
	}
	if svc.paymentsOut, err = outbox.NewWriter(outbox.TableFor(payments)); err != nil {
		return nil, err
	}
	return svc, nil
}

// Close closes the databases.
func (svc *services) Close() {
	for _, db := range []*sql.DB{svc.ordersDB, svc.paymentsDB} {
		if db != nil {
			db.Close()
		}
	}
}

// loadOrderEncoder makes the Avro encoder of OrderCreated v1, with the id
// `schema register` gave it, and finds the routed topics of both events.
func (svc *services) loadOrderEncoder(ctx context.Context, sp *spec.Spec, reg *registry.Client) error {
	cat, err := schemas.BuildCatalog(sp)
	if err != nil {
		return err
	}
	svc.paymentTopic = "outbox.event.Payment"
	for _, e := range cat.Entries {
		switch {
		case e.EventType == "OrderCreated" && e.Major == 1:
			svc.orderEntry = e
		case e.EventType == "PaymentCaptured":
			svc.paymentTopic = e.Topic
		}
	}
	if svc.orderEntry == nil {
		return errors.New("OrderCreated v1 is not in the spec")
	}
	registered, err := reg.Lookup(ctx, svc.orderEntry.Subject, string(svc.orderEntry.Source))
	if err != nil {
		return fmt.Errorf("look up %s (run `outboxctl schema register` first): %w", svc.orderEntry.Subject, err)
	}
	svc.enc, err = outbox.NewAvroEncoderFromSchema(uint32(registered.ID), registered.Schema)
	return err
}

// placeOrders places n orders and captures their payments: business row and
// event in one transaction each. It returns the ids of the events written.
func (svc *services) placeOrders(ctx context.Context, runID string, n int) ([]string, error) {
	var want []string
	for i := 1; i <= n; i++ {
		orderID := fmt.Sprintf("order-%s-%d", runID, i)
		amount := int64(1000 * i)
		id, err := svc.placeOrder(ctx, orderID, "customer-"+fmt.Sprint(i), amount)
		if err != nil {
			return nil, err
		}
		fmt.Printf("orders   -> OrderCreated     %s in the orders transaction (event %s)\n", orderID, id)
		want = append(want, id)
		paymentID := "pay-" + orderID
		pid, err := svc.capturePayment(ctx, paymentID, orderID, amount)
		if err != nil {
			return nil, err
		}
		fmt.Printf("payments -> PaymentCaptured  %s in the payments transaction (event %s)\n", paymentID, pid)
		want = append(want, pid)
	}
	return want, nil
}

// placeOrder writes an order and its OrderCreated event (Avro) in one
// PostgreSQL transaction.
func (svc *services) placeOrder(ctx context.Context, orderID, customer string, amount int64) (string, error) {
	tx, err := svc.ordersDB.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback() // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `INSERT INTO orders VALUES ($1, $2, $3)`, orderID, customer, amount); err != nil {
		return "", err
	}
	payload, err := svc.enc.Encode(map[string]any{"orderId": orderID, "customer": customer, "amountCents": amount, "currency": "EUR"})
	if err != nil {
		return "", err
	}
	id, err := svc.ordersOut.Write(ctx, tx, outbox.Event{AggregateType: "Order", AggregateID: orderID, Type: "OrderCreated", SchemaVersion: 1, Payload: payload})
	if err != nil {
		return "", err
	}
	return id, tx.Commit()
}

// capturePayment writes a payment and its PaymentCaptured event (JSON) in
// one MariaDB transaction.
func (svc *services) capturePayment(ctx context.Context, paymentID, orderID string, amount int64) (string, error) {
	tx, err := svc.paymentsDB.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback() // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `INSERT INTO payments VALUES (?, ?, ?)`, paymentID, orderID, amount); err != nil {
		return "", err
	}
	id, err := svc.paymentsOut.Write(ctx, tx, outbox.Event{AggregateType: "Payment", AggregateID: paymentID, Type: "PaymentCaptured", SchemaVersion: 1,
		Payload: []byte(fmt.Sprintf(`{"paymentId":%q,"orderId":%q,"amountCents":%d}`, paymentID, orderID, amount))})
	if err != nil {
		return "", err
	}
	return id, tx.Commit()
}

// rollBackOrder writes an order event in a transaction that rolls back: its
// event must never arrive. It returns the event's id.
func (svc *services) rollBackOrder(ctx context.Context) (string, error) {
	tx, err := svc.ordersDB.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	payload, _ := svc.enc.Encode(map[string]any{"orderId": "order-rolled-back", "customer": "nobody", "amountCents": int64(1), "currency": "EUR"})
	ghost, err := svc.ordersOut.Write(ctx, tx, outbox.Event{AggregateType: "Order", AggregateID: "order-rolled-back", Type: "OrderCreated", SchemaVersion: 1, Payload: payload})
	if err != nil {
		return "", err
	}
	if err := tx.Rollback(); err != nil {
		return "", err
	}
	fmt.Printf("orders   -> OrderCreated     order-rolled-back, transaction rolled back (event %s)\n", ghost)
	return ghost, nil
}

// billing is the consumer side: the billing service's database (invoices
// and the inbox), its router and its consumer, and the events it handled.
type billing struct {
	db       *sql.DB
	consumer *consumer.Consumer
	mu       sync.Mutex
	handled  map[string]bool
}

// newBilling creates the billing database, its inbox and invoices tables,
// and the consumer of the two routed topics, with a handler per event.
func newBilling(ctx context.Context, st endpoints, reg *registry.Client, orderEntry *schemas.CatalogEntry, paymentTopic string) (_ *billing, err error) {
	b := &billing{handled: map[string]bool{}}
	if b.db, err = ensurePostgresDB(ctx, st.PostgresDSN, "demo_billing"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	store, err := inbox.NewPostgres(b.db, "inbox")
	if err != nil {
		return nil, err
	}
	if err := store.CreateTable(ctx); err != nil {
		return nil, err
	}
	if _, err := b.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS invoices (order_id text PRIMARY KEY, amount_cents bigint, currency text, paid boolean NOT NULL DEFAULT false)`); err != nil {
		return nil, err
	}
	router, err := consumer.NewRouter(consumer.RouterConfig{
		Schemas: consumer.RegistryByID(reg), Inbox: store, // ConsumerGroup: the Consumer's GroupID
	})
	if err != nil {
		return nil, err
	}
	router.Use(consumer.Retry{MaxAttempts: 5, InitialInterval: 100 * time.Millisecond}.Middleware, consumer.Recover())
	if err := consumer.Handle(router, "OrderCreated", 1, b.orderCreated, consumer.ReaderSchema(string(orderEntry.Source))); err != nil {
		return nil, err
	}
	if err := consumer.Handle(router, "PaymentCaptured", 1, b.paymentCaptured); err != nil {
		return nil, err
	}
	b.consumer, err = consumer.NewConsumer(consumer.ConsumerConfig{
		Client:  kafkaclient.Config{BootstrapServers: st.BootstrapServers},
		GroupID: "demo-billing", Topics: []string{orderEntry.Topic, paymentTopic},
		CommitInterval: 500 * time.Millisecond,
		OnError:        func(err error) { fmt.Fprintln(os.Stderr, "consumer:", err) },
	}, router)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Close closes the billing database.
func (b *billing) Close() { b.db.Close() }

// orderCreated records the order's invoice in the inbox transaction.
func (b *billing) orderCreated(ctx context.Context, ev consumer.Event[OrderCreated]) error {
	if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO invoices (order_id, amount_cents, currency) VALUES ($1, $2, $3)
		 ON CONFLICT (order_id) DO UPDATE SET amount_cents = EXCLUDED.amount_cents, currency = EXCLUDED.currency`,
		ev.Payload.OrderID, ev.Payload.AmountCents, ev.Payload.Currency); err != nil {
		return err
	}
	fmt.Printf("billing <- %-16s v%d key=%s id=%s schema-id=%d  %s ordered %d %s\n",
		ev.EventType, ev.Version, ev.AggregateID, ev.EventID, ev.SchemaID, ev.Payload.Customer, ev.Payload.AmountCents, ev.Payload.Currency)
	b.markHandled(ev.EventID)
	return nil
}

// paymentCaptured marks the order's invoice paid in the inbox transaction.
func (b *billing) paymentCaptured(ctx context.Context, ev consumer.Event[PaymentCaptured]) error {
	// Topics are not ordered with each other: a payment may arrive first.
	if _, err := ev.Tx.ExecContext(ctx, `INSERT INTO invoices (order_id, paid) VALUES ($1, true)
		 ON CONFLICT (order_id) DO UPDATE SET paid = true`, ev.Payload.OrderID); err != nil {
		return err
	}
	fmt.Printf("billing <- %-16s v%d key=%s id=%s json        order %s paid %d\n",
		ev.EventType, ev.Version, ev.AggregateID, ev.EventID, ev.Payload.OrderID, ev.Payload.AmountCents)
	b.markHandled(ev.EventID)
	return nil
}

func (b *billing) markHandled(id string) {
	b.mu.Lock()
	b.handled[id] = true
	b.mu.Unlock()
}

// wait polls until every event of want was handled, failing as soon as the
// rolled-back event ghost was, or when timeout passes.
func (b *billing) wait(want []string, ghost string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		b.mu.Lock()
		missing := 0
		for _, id := range want {
			if !b.handled[id] {
				missing++
			}
		}
		ghostSeen := b.handled[ghost]
		b.mu.Unlock()
		if ghostSeen {
			return fmt.Errorf("the rolled-back event %s was delivered", ghost)
		}
		if missing == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d events not handled within %s", missing, len(want), timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
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
