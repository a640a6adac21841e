// Command service is a copyable orders service built on the outboxctl SDK.
//
//   - POST /orders writes an order row and its OrderPlaced event (Avro v2,
//     schema id from the registry) in one pgx transaction, with the request's
//     W3C trace context in the outbox's tracing column.
//   - A billing consumer reads the routed topic, upcasts OrderPlaced v1 to v2,
//     and records one invoice per order in the same PostgreSQL transaction as
//     its inbox mark; poison events go to a dead-letter topic.
//   - GET /metrics serves the consumer's Prometheus metrics.
//   - SIGTERM or SIGINT: the HTTP server stops accepting requests, the consumer
//     drains and commits its offsets, the pools close, and it exits 0.
//
// It imports nothing under outboxctl's internal/, so this directory can be
// copied into another module. Every setting is a flag with an environment
// default (see README.md); only main reads them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/outboxctl/outboxctl/kafkaclient"
)

// config is everything the service reads from flags and the environment.
type config struct {
	SpecPath    string
	Addr        string
	PostgresDSN string
	RegistryURL string
	Kafka       kafkaclient.Config
	GroupID     string
	DLQTopic    string
	Shutdown    time.Duration
}

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(2)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, cfg, logger); err != nil {
		logger.Error("service stopped", "error", err)
		os.Exit(1)
	}
	logger.Info("service stopped cleanly")
}

func parseConfig(args []string, getenv func(string) string) (config, error) {
	env := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	var c config
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	fs.StringVar(&c.SpecPath, "f", env("SERVICE_SPEC", ""), "outbox spec file to read instead of the embedded one ($SERVICE_SPEC)")
	fs.StringVar(&c.Addr, "addr", env("SERVICE_ADDR", "127.0.0.1:8080"), "HTTP listen address ($SERVICE_ADDR)")
	fs.StringVar(&c.PostgresDSN, "pg-dsn", env("SERVICE_PG_DSN", "postgres://postgres@127.0.0.1:15432/service_orders?sslmode=disable"), "PostgreSQL of the orders and of billing's inbox ($SERVICE_PG_DSN)")
	fs.StringVar(&c.RegistryURL, "registry", env("SERVICE_SCHEMA_REGISTRY_URL", "http://127.0.0.1:18081/apis/ccompat/v7"), "schema registry ($SERVICE_SCHEMA_REGISTRY_URL)")
	fs.StringVar(&c.Kafka.BootstrapServers, "kafka", env("SERVICE_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:19092"), "Kafka bootstrap servers ($SERVICE_KAFKA_BOOTSTRAP_SERVERS)")
	protocol := fs.String("kafka-security-protocol", env("SERVICE_KAFKA_SECURITY_PROTOCOL", ""), "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL ($SERVICE_KAFKA_SECURITY_PROTOCOL)")
	mechanism := fs.String("kafka-sasl-mechanism", env("SERVICE_KAFKA_SASL_MECHANISM", ""), "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 ($SERVICE_KAFKA_SASL_MECHANISM)")
	fs.StringVar(&c.Kafka.Security.Username, "kafka-sasl-username", env("SERVICE_KAFKA_SASL_USERNAME", ""), "SASL user ($SERVICE_KAFKA_SASL_USERNAME)")
	fs.StringVar(&c.Kafka.Security.CALocation, "kafka-ssl-ca", env("SERVICE_KAFKA_SSL_CA_LOCATION", ""), "PEM CA of the brokers ($SERVICE_KAFKA_SSL_CA_LOCATION)")
	fs.StringVar(&c.GroupID, "group", env("SERVICE_GROUP_ID", "service-billing"), "consumer group, also the inbox's consumer name ($SERVICE_GROUP_ID)")
	fs.StringVar(&c.DLQTopic, "dlq", env("SERVICE_DLQ_TOPIC", "service.billing.dlq"), "dead-letter topic ($SERVICE_DLQ_TOPIC)")
	shutdown := env("SERVICE_SHUTDOWN_TIMEOUT", "20s")
	fs.Func("shutdown-timeout", "bound of the graceful shutdown ($SERVICE_SHUTDOWN_TIMEOUT, default 20s)", func(s string) error { shutdown = s; return nil })
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	d, err := time.ParseDuration(shutdown)
	if err != nil {
		return c, fmt.Errorf("shutdown timeout: %w", err)
	}
	c.Shutdown = d
	c.Kafka.Security.Protocol = kafkaclient.Protocol(*protocol)
	c.Kafka.Security.Mechanism = kafkaclient.Mechanism(*mechanism)
	// The password only from the environment: a flag would show in ps.
	c.Kafka.Security.Password = getenv("SERVICE_KAFKA_SASL_PASSWORD")
	if err := c.Kafka.Validate(); err != nil {
		return c, err
	}
	if c.GroupID == "" || c.DLQTopic == "" {
		return c, errors.New("-group and -dlq must not be empty")
	}
	return c, nil
}
