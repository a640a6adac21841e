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
// The relay rows (relay_integration_test.go) run the same load and
// consumer on a pipeline of their own, published by two `outboxctl relay`
// processes (the binary built by the suite; one leader, one standby)
// instead of the connector: kill -9 of the leader at the window after the
// broker acknowledged a batch and before the relay deleted its rows (a
// DELETE trigger waits on an advisory lock the suite holds; the suite kills
// the leader once its DELETE waits there, and opens the gate once the
// database ended the dead session, so the DELETE never commits), after
// which the standby takes the lock and publishes the batch again; and a
// restart of the Kafka broker under the relay. The relay deletes what it
// published, so the committed events are counted from a table an insert
// trigger fills in the writer's transaction. These rows also read the
// whole topic back and count the duplicate records (by event id): the
// relay is at least once, so the kill row must add some (else the window
// was missed and the row fails), while the effects through the inbox stay
// exactly once.
//
// It runs on its own stack instance, `make stack-crash-up` (PostgreSQL,
// Kafka, Connect and the registry, every port + 2000, in
// $OUTBOX_CRASH_STACK_DIR), because it kills and restarts services: the main
// stack is shared by every other test, and the fault instance by the
// consumer's pause tests, which run at the same time under `go test ./...`.
//
// `make test` runs the short form (each fault once); `make crash-test` the
// full one (OUTBOX_CRASH_FULL=1: the consumer killed 10 times, Connect 3
// times, the broker restarted twice; the relay leader killed 5 times, the
// broker restarted twice under the relay).
// OUTBOX_CRASH_ONLY=<part of a fault's name> runs only the matching faults
// (after the warm-up), for example OUTBOX_CRASH_ONLY=blackholed.
// OUTBOX_CRASH_FREEZE=<Go duration> (default 30s) is how long the cluster's
// freeze row keeps the broker stopped (a measurement aid: a wait for the
// resume from a wait for a 30 s timeout).
// OUTBOX_CRASH_KAFKA_DEBUG=<librdkafka debug contexts> (for example
// cgrp,fetch) writes librdkafka's debug log into the consumer processes'
// logs (keep them with OUTBOX_CRASH_LOG_DIR).
// OUTBOX_CRASH_INBOX_BATCH=N (N > 1) runs the consumer processes (of the CDC
// and the relay rows) in inbox batches of up to N records
// (ConsumerConfig.Batch) whose effects a consumer.HandleBatch function
// writes in one INSERT per run: the batched, pipelined inbox under the
// same faults and counts.
//
// TestClusterCrashSuite (cluster_integration_test.go) runs the same load
// and consumer on the cluster instance, `make stack-cluster-up` (3 combined
// KRaft nodes, topics at replication factor 3 with min.insync.replicas=2, 2
// Connect workers with exactly.once.source.support=enabled; ports + 4000,
// in $OUTBOX_CLUSTER_STACK_DIR): kill -9 of the broker leading the outbox
// topic (3 times in the full suite: the repetitions alternate the node that
// is also the active KRaft controller, read from the nodes' quorum-state
// files, first, and a partition leader that is not, and the row says which
// it was), a rolling restart of the 3 brokers, the leading broker frozen
// (SIGSTOP) 30 s (of the nodes leading outbox partitions, the one
// coordinating most of the consumer group and the task's transactions),
// kill -9 of the worker running the Debezium task with a connector without
// exactly.once.support (3; the workers still run it transactionally) and
// with an exactly-once connector (3), and kill -9 of both workers while the
// task's transaction is open (its worker frozen until the outbox topic's and
// _connect-offsets' last stable offsets stay below their high watermarks),
// then their restart. Each row adds the
// duplicate records in the topic (read back by event id with
// read_committed; an exactly-once row must add none), the time to recover
// (from the fault until, in every aggregate, the first event committed
// after it has its effect) and the worst commit-to-effect latency of the
// row; the leader-kill and freeze rows log a timeline from the fault
// (the controller election, leaders, coordinators, new and
// read_committed-readable records, when Connect is back: the first event
// committed after the fault readable; the consumer group's first offset
// commit; when the consumer is back: that event handled, and every
// aggregate's), the both-workers row one from the kill (when the workers
// answer, when the open transaction is resolved). The
// cluster rows' consumer has a 15 s session and static membership (see
// docs/production.md). Each row holds an exclusive flock on cluster.lock in the instance's
// directory, which any other test that kills or freezes the cluster's
// processes takes too. The table goes to $OUTBOX_CRASH_CLUSTER_REPORT
// (crash-report-cluster.md under `make crash-test`); docs/production.md
// has the figures.
//
// TestClusterWorkerKillOffsetWindow (cluster_window_integration_test.go)
// shows what exactly-once removes. A worker with
// exactly.once.source.support=enabled runs every source task
// transactionally, so it starts a worker of its own on the cluster's
// brokers (own group and internal topics, offset.flush.interval.ms=10000),
// once without and once with exactly-once source support, and kills it
// with kill -9 3 s after the connector's offsets were last written to its
// offsets topic (watched with read_committed), while records of those 3 s
// are acknowledged in the topic: the at-least-once worker must add
// duplicate records to the topic after its restart (skipped by the inbox),
// the exactly-once worker none.
//
// TestClusterDefaultRebalanceDelay
// (build tag measure, not in make test) measures how long
// Connect's default scheduled.rebalance.max.delay.ms keeps the task of a
// killed worker down.
package crashtest
