package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/outboxctl/outboxctl/consumer"
	"github.com/outboxctl/outboxctl/consumer/consumerotel"
	"github.com/outboxctl/outboxctl/consumer/consumerprom"
	"github.com/outboxctl/outboxctl/consumer/inbox"
	"github.com/outboxctl/outboxctl/outbox"
	"github.com/outboxctl/outboxctl/outbox/outboxotel"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/schemas/registry"
	"github.com/outboxctl/outboxctl/spec"
)

// OrderPlacedV1 and OrderPlacedV2 are the two major versions of the event
// (schemas/OrderPlaced.v1.avsc, .v2.avsc).
type OrderPlacedV1 struct {
	OrderID     string `avro:"orderId"`
	Customer    string `avro:"customer"`
	AmountCents int64  `avro:"amountCents"`
}

type OrderPlacedV2 struct {
	OrderID     string `avro:"orderId"`
	Customer    string `avro:"customer"`
	AmountCents int64  `avro:"amountCents"`
	Currency    string `avro:"currency"`
}

const (
	outboxName = "service-orders"
	eventType  = "OrderPlaced"
)

// schemaDDL is the service's own tables: the orders (the writing side) and
// the invoices (billing, the consuming side). The outbox table is
// provisioned by outboxctl, the inbox table by the inbox store.
const schemaDDL = `
CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, customer text NOT NULL, amount_cents bigint NOT NULL, currency text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS invoices (order_id text PRIMARY KEY, event_id text NOT NULL, amount_cents bigint NOT NULL, currency text NOT NULL, written_version int NOT NULL)`

// specFS holds the spec and its schemas: the service needs neither on disk
// at run time (-f reads another spec from disk instead).
//
//go:embed outbox.yaml schemas/*.avsc
var specFS embed.FS

func loadSpec(path string) (*spec.Spec, error) {
	if path == "" {
		return spec.LoadFS(specFS, "outbox.yaml")
	}
	return spec.Load(path)
}

func run(ctx context.Context, cfg config, logger *slog.Logger) error {
	// wiring:writer:begin
	sp, err := loadSpec(cfg.SpecPath)
	if err != nil {
		return err
	}
	ob, err := sp.Outbox(outboxName)
	if err != nil {
		return err
	}
	cat, err := schemas.BuildCatalog(sp)
	if err != nil {
		return err
	}
	reg, err := registry.NewClient(cfg.RegistryURL)
	if err != nil {
		return err
	}
	// One pgx pool for everything: the orders, the outbox and billing's
	// inbox.
	pool, err := pgxpool.New(ctx, cfg.PostgresDSN)
	if err != nil {
		return err
	}
	defer pool.Close()
	// The writer: typed Avro through the registry (ids looked up once and
	// cached), trace context from the request's context.
	w, err := outbox.NewWriter(outbox.TableFor(ob),
		outbox.WithSchemas(outbox.RegistryByEventType(reg, cat, outboxName)),
		outbox.WithTraceContext(outboxotel.TraceContext), outbox.WithLogger(logger))
	if err != nil {
		return err
	}
	// wiring:writer:end
	if _, err := pool.Exec(ctx, schemaDDL); err != nil {
		return fmt.Errorf("create tables: %w", err)
	}

	// The consumer, from the spec: topics, headers and reader schemas come
	// from it; inbox on the same pgx pool, DLQ, Retry, tracing, metrics.
	// wiring:consumer:begin
	store, err := inbox.NewPgxPool(pool, inbox.DefaultTable)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.CreateTable(ctx); err != nil {
		return err
	}
	metrics, err := consumerprom.New(consumerprom.Config{})
	if err != nil {
		return err
	}
	app, err := consumer.FromSpec(sp, outboxName, consumer.Options{
		GroupID: cfg.GroupID, Kafka: cfg.Kafka, Schemas: consumer.RegistryByID(reg), Inbox: store,
		DLQTopic: cfg.DLQTopic, Retry: consumer.Retry{MaxAttempts: 3, InitialInterval: 100 * time.Millisecond, MaxInterval: 2 * time.Second},
		Tracing: consumerotel.Middleware(consumerotel.Config{ConsumerGroup: cfg.GroupID}), Timeout: 30 * time.Second,
		Observer: metrics, Logger: logger,
		Consumer: consumer.ConsumerConfig{Kafka: kafka.ConfigMap{"statistics.interval.ms": 5000}, CommitInterval: 500 * time.Millisecond,
			DrainTimeout: cfg.Shutdown / 2, OnStatistics: metrics.ObserveStatistics},
	})
	if err != nil {
		return err
	}
	defer app.Close()
	if err := registerBilling(app.Router, logger); err != nil {
		return err
	}
	// wiring:consumer:end

	mux := http.NewServeMux()
	mux.Handle("POST /orders", placeOrder(pool, w, logger))
	mux.Handle("GET /metrics", metrics.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	logger.Info("service listening", "addr", ln.Addr().String(), "topics", app.Topics, "group", cfg.GroupID, "kafka", cfg.Kafka.String())

	consumerCtx, stopConsumer := context.WithCancel(context.Background())
	defer stopConsumer()
	consumerDone := make(chan error, 1)
	go func() { consumerDone <- app.Run(consumerCtx) }()
	httpDone := make(chan error, 1)
	go func() { httpDone <- srv.Serve(ln) }()

	var runErr error
	consumerStopped := false
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case err := <-consumerDone:
		// The consumer ended by itself (say a failed SASL authentication).
		consumerStopped, runErr = true, err
	case err := <-httpDone:
		runErr = fmt.Errorf("http: %w", err)
	}

	// Stop accepting requests and finish those in flight, then drain the
	// consumer: its records in processing finish and their offsets are
	// committed before Run returns, which closes the DLQ producer. The
	// deferred calls close the pool.
	sctx, cancel := context.WithTimeout(context.Background(), cfg.Shutdown)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("http shutdown: %w", err))
	}
	if !consumerStopped {
		stopConsumer()
		if err := <-consumerDone; err != nil && !errors.Is(err, context.Canceled) {
			runErr = errors.Join(runErr, err)
		}
	}
	return runErr
}

// orderRequest is the body of POST /orders.
type orderRequest struct {
	ID          string `json:"id"`
	Customer    string `json:"customer"`
	AmountCents int64  `json:"amountCents"`
	Currency    string `json:"currency"`
}

// placeOrder writes the order row and its OrderPlaced v2 event in one pgx
// transaction: both commit or neither does.
func placeOrder(pool *pgxpool.Pool, w *outbox.Writer, logger *slog.Logger) http.Handler {
	prop := propagation.TraceContext{}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		// The caller's trace continues into the event (traceparent header).
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		var req orderRequest
		if err := json.NewDecoder(http.MaxBytesReader(rw, r.Body, 1<<16)).Decode(&req); err != nil {
			http.Error(rw, "invalid JSON: "+err.Error(), http.StatusBadRequest)
			return
		}
		if req.ID == "" || req.Customer == "" {
			http.Error(rw, "id and customer are required", http.StatusBadRequest)
			return
		}
		if req.Currency == "" {
			req.Currency = "EUR"
		}
		eventID, err := func() (string, error) {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return "", err
			}
			defer tx.Rollback(context.WithoutCancel(ctx))
			if _, err := tx.Exec(ctx, `INSERT INTO orders (id, customer, amount_cents, currency) VALUES ($1, $2, $3, $4)`,
				req.ID, req.Customer, req.AmountCents, req.Currency); err != nil {
				return "", err
			}
			id, err := w.Write(ctx, outbox.Pgx(tx), outbox.Event{
				AggregateType: "Order", AggregateID: req.ID, Type: eventType, SchemaVersion: 2,
				Value: OrderPlacedV2{OrderID: req.ID, Customer: req.Customer, AmountCents: req.AmountCents, Currency: req.Currency},
			})
			if err != nil {
				return "", err
			}
			return id, tx.Commit(ctx)
		}()
		if err != nil {
			logger.ErrorContext(ctx, "place order", "order_id", req.ID, "error", err)
			status := http.StatusInternalServerError
			if errors.Is(err, outbox.ErrInvalidEvent) {
				status = http.StatusBadRequest
			}
			http.Error(rw, err.Error(), status)
			return
		}
		logger.InfoContext(ctx, "order placed", "order_id", req.ID, "event_id", eventID)
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(http.StatusCreated)
		json.NewEncoder(rw).Encode(map[string]string{"orderId": req.ID, "eventId": eventID})
	})
}
