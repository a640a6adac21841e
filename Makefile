# outboxctl: every set-up step is here, so that a fresh machine needs only
#   make test   (installs and starts the native stack, runs every test)
#   make demo   (the end-to-end outbox flow)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X github.com/outboxctl/outboxctl/cmd.version=$(VERSION) -X github.com/outboxctl/outboxctl/cmd.commit=$(COMMIT)
export CGO_ENABLED := 1
STACK_DIR := $(or $(OUTBOX_STACK_DIR),$(CURDIR)/.stack)
# The stack keeps Avro Java 1.12 (the registry's) in .stack/avro-java; with it
# the Java oracle tests of schemas/resolve compare this project's resolution
# with Java's GenericDatumReader on every run.
# The fault instance: a second, isolated stack (PostgreSQL, Kafka and the
# registry only, every port + 1000) that the consumer's failure tests pause
# with SIGSTOP/SIGCONT through the pid files in its run/ directory, so that
# they never disturb the tests sharing the main stack.
FAULT_STACK_DIR := $(or $(OUTBOX_FAULT_STACK_DIR),$(CURDIR)/.stack-fault)
FAULT_PORT_OFFSET := 1000
FAULT_SERVICES := postgres kafka registry
WITH_FAULT_STACK = export OUTBOX_FAULT_STACK_DIR="$(FAULT_STACK_DIR)" OUTBOX_FAULT_PORT_OFFSET=$(FAULT_PORT_OFFSET) OUTBOX_CRASH_STACK_DIR="$(CRASH_STACK_DIR)" OUTBOX_CRASH_PORT_OFFSET=$(CRASH_PORT_OFFSET) OUTBOX_CLUSTER_STACK_DIR="$(CLUSTER_STACK_DIR)" OUTBOX_CLUSTER_PORT_OFFSET=$(CLUSTER_PORT_OFFSET);
# The crash instance: a third stack (PostgreSQL, Kafka, Connect, registry;
# ports + 2000) that the crash suite (package crashtest) kills and restarts
# services of. It is not the fault instance because the consumer's pause
# tests use that one at the same time under go test ./....
CRASH_STACK_DIR := $(or $(OUTBOX_CRASH_STACK_DIR),$(CURDIR)/.stack-crash)
CRASH_PORT_OFFSET := 2000
CRASH_SERVICES := postgres kafka connect registry
# The cluster instance: a fourth stack (PostgreSQL, 3 combined KRaft
# broker+controller nodes, 2 Connect workers in one group, the registry;
# ports + 4000, node/worker n at + 100*(n-1)) with every topic at
# replication factor 3 and min.insync.replicas=2 and the workers able to run
# exactly-once source connectors. The cluster crash suite
# (TestClusterCrashSuite) kills and freezes its brokers and workers; see
# docs/production.md.
CLUSTER_STACK_DIR := $(or $(OUTBOX_CLUSTER_STACK_DIR),$(CURDIR)/.stack-cluster)
CLUSTER_PORT_OFFSET := 4000
CLUSTER_SERVICES := postgres kafka connect registry
CLUSTER_TOPOLOGY := OUTBOX_STACK_KAFKA_NODES=3 OUTBOX_STACK_CONNECT_WORKERS=2
WITH_AVRO_JAVA = if [[ -z "$${OUTBOX_AVRO_JAVA_CP:-}" && -d "$(STACK_DIR)/avro-java" ]]; then export OUTBOX_AVRO_JAVA_CP="$(STACK_DIR)/avro-java/*"; fi;

.PHONY: all build test test-unit test-integration crash-test vet fmt-check stack-up stack-down stack-status stack-logs stack-clean stack-fault-up stack-fault-down stack-crash-up stack-crash-down stack-cluster-up stack-cluster-down stack-cluster-status demo bench bench-publishers clean

all: build

build: ## build bin/outboxctl
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/outboxctl ./cmd/outboxctl

## ------------------------------------------------------------------ tests

# make test: bring the native stack up (installing what is missing), then run
# the unit tests and the integration tests (build tag "integration") in one
# go test run. With CI=true a service that does not answer fails the run.
test: stack-up stack-fault-up stack-crash-up stack-cluster-up vet fmt-check
	$(WITH_AVRO_JAVA) $(WITH_FAULT_STACK) scripts/gotest.sh -tags integration ./...

test-unit: vet ## unit tests only, no stack
	scripts/gotest.sh ./...

test-integration: stack-up stack-fault-up stack-crash-up stack-cluster-up
	$(WITH_AVRO_JAVA) $(WITH_FAULT_STACK) scripts/gotest.sh -tags integration ./...

# make crash-test: the full crash suite (consumer killed 10 times, Connect 3
# times, the broker restarted twice, then the registry, the inbox database
# and PostgreSQL; then the relay leader killed 5 times and the broker
# restarted twice under the relay); `make test` runs its short form (each
# fault once). The crash table is written to crash-report.md.
# Then the cluster crash suite (TestClusterCrashSuite on the cluster
# instance: the partition leader killed 3 times, a rolling restart of the 3
# brokers, a broker frozen 30 s, the worker running the task killed 3 times
# with the at-least-once and 3 times with the exactly-once connector, both
# workers killed); its table goes to crash-report-cluster.md.
crash-test: stack-crash-up stack-cluster-up
	$(WITH_FAULT_STACK) OUTBOX_CRASH_FULL=1 OUTBOX_CRASH_REPORT="$(CURDIR)/crash-report.md" \
		$(GO) test -count=1 -tags integration -timeout 60m -run '^TestCrashSuite$$' -v ./crashtest/
	$(WITH_FAULT_STACK) OUTBOX_CRASH_FULL=1 OUTBOX_CRASH_CLUSTER_REPORT="$(CURDIR)/crash-report-cluster.md" \
		$(GO) test -count=1 -tags integration -timeout 90m -run '^TestClusterCrashSuite$$' -v ./crashtest/

vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [[ -n "$$out" ]]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench-publishers: stack-up build ## one run of outboxctl bench: relay (100 ms poll, LISTEN/NOTIFY) against Debezium (profile latency); table on stdout
	scripts/bench-publishers.sh

bench: stack-up ## benchmarks; results go to docs/benchmarks.md by hand
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) test -tags integration -run '^$$' -bench BenchmarkConsumerThroughput -benchtime 1x ./consumer/

## ------------------------------------------------------------------ stack

# OUTBOX_STACK=external: use the services at the OUTBOX_* endpoints (docker
# compose, your own cluster) and start nothing.
stack-up: ## install (if missing) and start PostgreSQL, MariaDB, Kafka, Connect + Debezium, Apicurio
	@if [[ "$${OUTBOX_STACK:-native}" == external ]]; then echo "OUTBOX_STACK=external: using the services at the OUTBOX_* endpoints"; else devstack/stack.sh up; fi

stack-down: ## stop every stack process by its pid
	devstack/stack.sh down

stack-status:
	devstack/stack.sh status

stack-logs:
	devstack/stack.sh logs $(SERVICE)

stack-clean: ## stop and delete data and logs (downloads stay in ~/.m2)
	devstack/stack.sh clean

stack-fault-up: ## start the fault instance (postgres, kafka, registry; ports + 1000) for the failure tests
	@if [[ "$${OUTBOX_STACK:-native}" == external ]]; then echo "OUTBOX_STACK=external: no fault instance (the failure tests that pause services fail under CI=true)"; else \
		OUTBOX_STACK_DIR="$(FAULT_STACK_DIR)" OUTBOX_STACK_PORT_OFFSET=$(FAULT_PORT_OFFSET) OUTBOX_STACK_SERVICES="$(FAULT_SERVICES)" devstack/stack.sh up; fi

stack-fault-down:
	OUTBOX_STACK_DIR="$(FAULT_STACK_DIR)" OUTBOX_STACK_PORT_OFFSET=$(FAULT_PORT_OFFSET) devstack/stack.sh down

stack-crash-up: ## start the crash instance (postgres, kafka, connect, registry; ports + 2000) for the crash suite
	@if [[ "$${OUTBOX_STACK:-native}" == external ]]; then echo "OUTBOX_STACK=external: no crash instance (the crash suite fails under CI=true)"; else \
		OUTBOX_STACK_DIR="$(CRASH_STACK_DIR)" OUTBOX_STACK_PORT_OFFSET=$(CRASH_PORT_OFFSET) OUTBOX_STACK_SERVICES="$(CRASH_SERVICES)" devstack/stack.sh up; fi

stack-crash-down:
	OUTBOX_STACK_DIR="$(CRASH_STACK_DIR)" OUTBOX_STACK_PORT_OFFSET=$(CRASH_PORT_OFFSET) devstack/stack.sh down

stack-cluster-up: ## start the cluster instance (postgres, 3 Kafka nodes, 2 Connect workers, registry; ports + 4000) for the cluster crash suite
	@if [[ "$${OUTBOX_STACK:-native}" == external ]]; then echo "OUTBOX_STACK=external: no cluster instance (the cluster crash suite fails under CI=true)"; else \
		OUTBOX_STACK_DIR="$(CLUSTER_STACK_DIR)" OUTBOX_STACK_PORT_OFFSET=$(CLUSTER_PORT_OFFSET) OUTBOX_STACK_SERVICES="$(CLUSTER_SERVICES)" $(CLUSTER_TOPOLOGY) devstack/stack.sh up; fi

stack-cluster-down:
	OUTBOX_STACK_DIR="$(CLUSTER_STACK_DIR)" OUTBOX_STACK_PORT_OFFSET=$(CLUSTER_PORT_OFFSET) devstack/stack.sh down

stack-cluster-status:
	OUTBOX_STACK_DIR="$(CLUSTER_STACK_DIR)" OUTBOX_STACK_PORT_OFFSET=$(CLUSTER_PORT_OFFSET) devstack/stack.sh status

## ------------------------------------------------------------------ demo

demo: stack-up build
	scripts/demo.sh

clean:
	rm -rf bin
