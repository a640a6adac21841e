// Package crashtest is the crash suite (build tag "integration"): under a
// steady load from the outbox writer, a consumer process using the
// PostgreSQL inbox (this package's test binary, re-executed, so that it can
// be killed with SIGKILL) reads what a Debezium connector routes, while one
// fault at a time hits the pipeline: kill -9 of the consumer, kill -9 of the
// Kafka Connect worker, a restart of the Kafka broker, the registry
// unreachable for 30 s, the inbox database unreachable for 20 s (refused),
// the inbox database blackholed for 40 s (the suite's TCP proxy frozen:
// connections kept open, nothing forwarded; the consumer must log its
// inbox transaction timeouts), and a PostgreSQL restart under the
// connector. After each fault the suite counts
// exactly: N events committed (the rows of the outbox table), N effects (the
// rows the handler writes in its inbox transaction), 0 lost, 0 duplicate
// effects, every aggregate's effects in commit order.
//
// It runs on its own stack instance, `make stack-crash-up` (PostgreSQL,
// Kafka, Connect and the registry, every port + 2000, in
// $OUTBOX_CRASH_STACK_DIR), because it kills and restarts services: the main
// stack is shared by every other test, and the fault instance by the
// consumer's pause tests, which run at the same time under `go test ./...`.
//
// `make test` runs the short form (each fault once); `make crash-test` the
// full one (OUTBOX_CRASH_FULL=1: the consumer killed 10 times, Connect 3
// times, the broker restarted twice). OUTBOX_CRASH_ONLY=<part of a fault's
// name> runs only the matching faults (after the warm-up), for example
// OUTBOX_CRASH_ONLY=blackholed.
package crashtest
