#!/usr/bin/env bash
# The native outboxctl dev/CI stack: PostgreSQL and MariaDB from Debian,
# Apache Kafka 4 (KRaft) and Kafka Connect with the Debezium connectors and
# Apicurio Registry from Maven Central, all on 127.0.0.1.
#
#   devstack/stack.sh up       install what is missing, start what is not running, wait until healthy
#   devstack/stack.sh down     stop every service by its own pid
#   devstack/stack.sh status   one line per service; exit 1 if any is not healthy
#   devstack/stack.sh logs [SERVICE]   tail the logs
#   devstack/stack.sh clean    down, then remove data and logs (downloads stay cached)
#
# Everything lives in $OUTBOX_STACK_DIR (default: <repo>/.stack): lib/ and
# plugins/ and apicurio/ (copied from the Maven cache), etc/ (generated
# configs), data/, logs/, run/ (pid files). Maven's ~/.m2 caches downloads.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
STACK=${OUTBOX_STACK_DIR:-$REPO/.stack}
mkdir -p "$STACK"
STACK=$(cd "$STACK" && pwd)

# OUTBOX_STACK_PORT_OFFSET (default 0) shifts every port, so that a second,
# isolated instance (its own OUTBOX_STACK_DIR) can run beside the main one:
# fault tests that stop or kill services (the crash suite, the relay's broker
# restart) use one, and never disturb tests that share the main stack.
PORT_OFFSET=${OUTBOX_STACK_PORT_OFFSET:-0}
[[ $PORT_OFFSET =~ ^[0-9]+$ ]] || { echo "OUTBOX_STACK_PORT_OFFSET must be a number, got '$PORT_OFFSET'" >&2; exit 2; }
PG_PORT=$((15432 + PORT_OFFSET))
MARIA_PORT=$((13306 + PORT_OFFSET))
KAFKA_PORT=$((19092 + PORT_OFFSET))
KAFKA_CTRL_PORT=$((19093 + PORT_OFFSET))
# The broker's SASL_SSL listener (SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN
# over TLS with the stack's own CA), for the secured-Kafka tests: see
# ensure_kafka_tls and add_scram_users, and $STACK/etc/kafka-sasl/.
KAFKA_SASL_PORT=$((19094 + PORT_OFFSET))
# The dev stack's SASL user and password (not a secret: a dev stack only).
KAFKA_SASL_USER=outboxctl
KAFKA_SASL_PASSWORD=outboxctl-dev-secret
CONNECT_PORT=$((18083 + PORT_OFFSET))
REGISTRY_PORT=$((18081 + PORT_OFFSET))

# The cluster topology (the cluster instance of `make stack-cluster-up`):
# OUTBOX_STACK_KAFKA_NODES (default 1) combined broker+controller KRaft
# nodes and OUTBOX_STACK_CONNECT_WORKERS (default 1) Connect workers in one
# group. Node n (and worker n) listens on its ports + 100*(n-1); node 1 is
# the service "kafka" (pid file run/kafka.pid), node n the service
# "kafka-n" (run/kafka-n.pid, logs/kafka-n.log, data/kafka-n), likewise
# "connect" and "connect-n". With more than one node the brokers replicate
# every topic 3 times (min.insync.replicas=2, no unclean leader election)
# and the workers run exactly.once.source.support=enabled. `up` records
# the topology in $STACK/etc/topology for later status/down/clean.
read_topology() {
	KAFKA_NODES=${OUTBOX_STACK_KAFKA_NODES:-} CONNECT_WORKERS=${OUTBOX_STACK_CONNECT_WORKERS:-}
	if [[ -s $STACK/etc/topology ]]; then
		local kn cw
		# shellcheck disable=SC1091
		kn=$(sed -n 's/^kafka_nodes=//p' "$STACK/etc/topology") cw=$(sed -n 's/^connect_workers=//p' "$STACK/etc/topology")
		KAFKA_NODES=${KAFKA_NODES:-$kn} CONNECT_WORKERS=${CONNECT_WORKERS:-$cw}
	fi
	KAFKA_NODES=${KAFKA_NODES:-1} CONNECT_WORKERS=${CONNECT_WORKERS:-1}
	[[ $KAFKA_NODES =~ ^[1-9]$ ]] || { echo "OUTBOX_STACK_KAFKA_NODES must be 1-9, got '$KAFKA_NODES'" >&2; exit 2; }
	[[ $CONNECT_WORKERS =~ ^[1-9]$ ]] || { echo "OUTBOX_STACK_CONNECT_WORKERS must be 1-9, got '$CONNECT_WORKERS'" >&2; exit 2; }
}
read_topology
# Replication of the cluster's topics: 3 (or the node count when fewer).
REPLICAS=$((KAFKA_NODES < 3 ? KAFKA_NODES : 3))
MIN_ISR=$((REPLICAS > 1 ? REPLICAS - 1 : 1))
# The Connect workers' scheduled.rebalance.max.delay.ms: how long the group
# leader keeps a lost worker's tasks unassigned, waiting for it to come back.
# Connect's default is 300000 (5 min: a killed worker's Debezium task stays
# down 5 min). One worker: 0 (nothing to wait for). The cluster: 10000,
# chosen by measurement (docs/production.md). OUTBOX_STACK_CONNECT_REBALANCE_DELAY_MS
# overrides it (the crash suite measures the default that way).
REBALANCE_DELAY_MS=${OUTBOX_STACK_CONNECT_REBALANCE_DELAY_MS:-$((CONNECT_WORKERS > 1 ? 10000 : 0))}
# The cluster's failover timings (docs/production.md, "Where a leader
# kill's time goes" and "Both workers killed during an open transaction"),
# each overridable (OUTBOX_STACK_<NAME>) so that the crash suite can
# measure another value: the controller fences a silent broker after
# KAFKA_SESSION_TIMEOUT_MS (Kafka's broker.session.timeout.ms, default
# 9000), brokers heartbeat every KAFKA_HEARTBEAT_MS (default 2000), a
# controller follower starts an election after
# KAFKA_QUORUM_FETCH_TIMEOUT_MS without the leader
# (controller.quorum.fetch.timeout.ms, default 2000). The transaction
# coordinator looks for timed-out transactions every
# KAFKA_TXN_ABORT_INTERVAL_MS (transaction.abort.timed.out.transaction.
# cleanup.interval.ms, default 10000), and the workers' transactional
# producers declare CONNECT_TXN_TIMEOUT_MS (producer.transaction.timeout.ms,
# default 60000): together, how long a transaction left open by a killed
# task holds back read_committed readers, the restarted workers' read of
# their offsets topic included (both workers killed: 68.6 s to recover
# with the defaults, 30.7 s with 2000 and 30000). A kill of the node that
# is also the active controller: 8.5-9.6 s to recover with a 5000 ms
# session and 1000 ms heartbeats, 6.6-9.0 s with 4000 and 500 (the new
# controller fences the dead node a full session after its election);
# a 1500 ms quorum fetch timeout did not make the elections shorter.
KAFKA_SESSION_TIMEOUT_MS=${OUTBOX_STACK_KAFKA_SESSION_TIMEOUT_MS:-4000}
KAFKA_HEARTBEAT_MS=${OUTBOX_STACK_KAFKA_HEARTBEAT_MS:-500}
KAFKA_QUORUM_FETCH_TIMEOUT_MS=${OUTBOX_STACK_KAFKA_QUORUM_FETCH_TIMEOUT_MS:-2000}
KAFKA_TXN_ABORT_INTERVAL_MS=${OUTBOX_STACK_KAFKA_TXN_ABORT_INTERVAL_MS:-2000}
CONNECT_TXN_TIMEOUT_MS=${OUTBOX_STACK_CONNECT_TXN_TIMEOUT_MS:-30000}
for v in KAFKA_SESSION_TIMEOUT_MS KAFKA_HEARTBEAT_MS KAFKA_QUORUM_FETCH_TIMEOUT_MS KAFKA_TXN_ABORT_INTERVAL_MS CONNECT_TXN_TIMEOUT_MS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "OUTBOX_STACK_$v must be a positive number of ms, got '${!v}'" >&2; exit 2; }
done
# The cluster workers' request.timeout.ms (their own clients: the group
# membership, the internal topics). Connect's default is 40000. When the
# node that coordinates the workers' group freezes (SIGSTOP: its
# connections stay open, nothing answers), a worker looks its coordinator
# up again by asking one node, possibly the frozen one, and waits this long
# for the answer before it asks another (docs/production.md, the freeze
# row). Empty: Connect's default. OUTBOX_STACK_CONNECT_REQUEST_TIMEOUT_MS
# overrides it.
CONNECT_REQUEST_TIMEOUT_MS=${OUTBOX_STACK_CONNECT_REQUEST_TIMEOUT_MS-}
[[ -z $CONNECT_REQUEST_TIMEOUT_MS || $CONNECT_REQUEST_TIMEOUT_MS =~ ^[0-9]+$ ]] || { echo "OUTBOX_STACK_CONNECT_REQUEST_TIMEOUT_MS must be a number of ms, got '$CONNECT_REQUEST_TIMEOUT_MS'" >&2; exit 2; }

# node_of INSTANCE: 1 for "kafka"/"connect", n for "kafka-n"/"connect-n".
node_of() { [[ $1 == *-[0-9] ]] && echo "${1##*-}" || echo 1; }
kafka_port() { echo $((KAFKA_PORT + 100 * ($1 - 1))); }
kafka_ctrl_port() { echo $((KAFKA_CTRL_PORT + 100 * ($1 - 1))); }
kafka_sasl_port() { echo $((KAFKA_SASL_PORT + 100 * ($1 - 1))); }
connect_port() { echo $((CONNECT_PORT + 100 * ($1 - 1))); }
# instances SERVICE: the processes of a service (kafka kafka-2 kafka-3 ...).
instances() {
	local n count=1
	case $1 in kafka) count=$KAFKA_NODES ;; connect) count=$CONNECT_WORKERS ;; esac
	echo "$1"
	for ((n = 2; n <= count; n++)); do echo "$1-$n"; done
}
# The bootstrap list of every node's PLAINTEXT listener.
kafka_bootstrap() {
	local n out=""
	for ((n = 1; n <= KAFKA_NODES; n++)); do out+="${out:+,}127.0.0.1:$(kafka_port $n)"; done
	echo "$out"
}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

# Bounded waits, in seconds.
WAIT_DB=${OUTBOX_STACK_WAIT_DB:-30}
WAIT_KAFKA=${OUTBOX_STACK_WAIT_KAFKA:-120}
WAIT_CONNECT=${OUTBOX_STACK_WAIT_CONNECT:-240}
WAIT_REGISTRY=${OUTBOX_STACK_WAIT_REGISTRY:-180}

ALL_SERVICES=(postgres mariadb kafka connect registry)
# OUTBOX_STACK_SERVICES (default: all) selects the services of an instance,
# e.g. "postgres kafka registry" for the consumer's fault instance. `up`
# records the selection in $STACK/etc/services, so that later `status`,
# `down` and `clean` of that instance act on the same services without it.
select_services() {
	local want=${OUTBOX_STACK_SERVICES:-} svc
	if [[ -z $want && -s $STACK/etc/services ]]; then want=$(cat "$STACK/etc/services"); fi
	if [[ -z $want ]]; then SERVICES=("${ALL_SERVICES[@]}"); return; fi
	SERVICES=()
	for svc in "${ALL_SERVICES[@]}"; do
		[[ " ${want//,/ } " == *" $svc "* ]] && SERVICES+=("$svc")
	done
	for svc in ${want//,/ }; do
		[[ " ${ALL_SERVICES[*]} " == *" $svc "* ]] || { echo "OUTBOX_STACK_SERVICES: unknown service '$svc' (known: ${ALL_SERVICES[*]})" >&2; exit 2; }
	done
	if selected connect && ! selected kafka; then echo "OUTBOX_STACK_SERVICES: connect needs kafka" >&2; exit 2; fi
}
selected() { [[ " ${SERVICES[*]} " == *" $1 "* ]]; }
SERVICES=()
select_services
JAVA21="" JAVA21_RESOLVED="" # see resolve_java21

log() { printf '[stack %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

pidfile() { echo "$STACK/run/$1.pid"; }
logfile() { echo "$STACK/logs/$1.log"; }

pid_alive() {
	local f; f=$(pidfile "$1")
	[[ -s $f ]] && kill -0 "$(cat "$f")" 2>/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

port_of() {
	case $1 in
	postgres) echo $PG_PORT ;; mariadb) echo $MARIA_PORT ;; kafka*) kafka_port "$(node_of "$1")" ;;
	connect*) connect_port "$(node_of "$1")" ;; registry) echo $REGISTRY_PORT ;;
	esac
}

# healthy SERVICE: does the service really answer?
healthy() {
	case $1 in
	postgres) "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p $PG_PORT -U postgres ;;
	mariadb) mariadb-admin --protocol=tcp -h127.0.0.1 -P$MARIA_PORT -uroot status >/dev/null 2>&1 ;;
	kafka*) port_open "$(port_of "$1")" && grep -q 'Kafka Server started' "$(logfile "$1")" 2>/dev/null ;;
	connect*)
		local plugins
		plugins=$(curl -sf --max-time 5 "http://127.0.0.1:$(port_of "$1")/connector-plugins" 2>/dev/null) || return 1
		[[ $plugins == *io.debezium.connector.postgresql.PostgresConnector* &&
			$plugins == *io.debezium.connector.mariadb.MariaDbConnector* &&
			$plugins == *io.debezium.connector.mysql.MySqlConnector* ]]
		;;
	registry) curl -sf --max-time 5 "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7/subjects" >/dev/null 2>&1 ;;
	esac
}

# ---------------------------------------------------------------- install

ensure_packages() {
	local missing=()
	[[ -x $PG_BIN/postgres ]] || missing+=(postgresql-15)
	command -v mariadbd >/dev/null 2>&1 || [[ -x /usr/sbin/mariadbd ]] || missing+=(mariadb-server)
	command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
	command -v mvn >/dev/null 2>&1 || missing+=(maven)
	command -v curl >/dev/null 2>&1 || missing+=(curl)
	# prometheus (2.42) brings promtool (make test runs the alert rule tests)
	# and the server the exporter's integration test starts per test.
	command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
	if ((${#missing[@]})); then
		log "installing Debian packages: ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		# Packages must not start their services (prometheus would, and
		# there is no init here): a policy-rc.d that refuses, for the
		# install only, unless one exists.
		local policy=/usr/sbin/policy-rc.d ours=""
		if [[ ! -e $policy ]]; then
			printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && ours=1
		fi
		local rc=0
		apt-get update -qq >"$STACK/logs/apt.log" 2>&1 || rc=1
		((rc)) || apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$STACK/logs/apt.log" 2>&1 || rc=2
		[[ -z $ours ]] || rm -f "$policy"
		((rc == 0)) || { tail -20 "$STACK/logs/apt.log" >&2; die "apt-get $( ((rc == 1)) && echo update || echo "install ${missing[*]}") failed"; }
	fi
}

ensure_artifacts() {
	local stamp want
	want=$(sha256sum "$HERE/pom.xml" | cut -c1-16)
	stamp="$STACK/.artifacts-$want"
	if [[ -f $stamp && -d $STACK/lib && -d $STACK/plugins && -f $STACK/apicurio/quarkus-run.jar ]]; then
		return 0
	fi
	log "fetching Kafka, Debezium and Apicurio from Maven Central (cached in ~/.m2)"
	rm -rf "$STACK/lib" "$STACK/plugins" "$STACK/apicurio" "$STACK/.markers" "$STACK"/.artifacts-*
	# shellcheck disable=SC2086 # OUTBOX_MAVEN_ARGS is a list of words
	if ! mvn -B -q -s "$HERE/maven/settings.xml" -f "$HERE/pom.xml" generate-resources ${OUTBOX_MAVEN_ARGS:-} \
		-Dstack.dir="$STACK" >"$STACK/logs/maven.log" 2>&1; then
		tail -30 "$STACK/logs/maven.log" >&2
		die "maven could not fetch the stack's artifacts (log: $STACK/logs/maven.log)"
	fi
	[[ -f $STACK/apicurio/quarkus-run.jar ]] || die "apicurio: quarkus-run.jar not found after unpacking"
	# Avro Java 1.12 (as the registry runs it) for the tests that compare
	# this project's Avro code with Java's: OUTBOX_AVRO_JAVA_CP=$STACK/avro-java/*
	mkdir -p "$STACK/avro-java"
	local jar
	for jar in org.apache.avro.avro- com.fasterxml.jackson.core.jackson-core- com.fasterxml.jackson.core.jackson-databind- \
		com.fasterxml.jackson.core.jackson-annotations- org.slf4j.slf4j-api- org.apache.commons.commons-compress-; do
		compgen -G "$STACK/apicurio/lib/main/$jar[0-9]*.jar" >/dev/null || die "apicurio: no $jar*.jar in lib/main for avro-java"
		cp "$STACK"/apicurio/lib/main/"$jar"[0-9]*.jar "$STACK/avro-java/"
	done
	touch "$stamp"
}

# server_conf N: the file of node N's broker configuration.
server_conf() { if (($1 == 1)); then echo "$STACK/etc/server.properties"; else echo "$STACK/etc/server-$1.properties"; fi; }
connect_conf() { if (($1 == 1)); then echo "$STACK/etc/connect-distributed.properties"; else echo "$STACK/etc/connect-distributed-$1.properties"; fi; }
kafka_data() { if (($1 == 1)); then echo "$STACK/data/kafka"; else echo "$STACK/data/kafka-$1"; fi; }

write_configs() {
	mkdir -p "$STACK/etc"
	local n voters="" port ctrl sasl
	for ((n = 1; n <= KAFKA_NODES; n++)); do voters+="${voters:+,}$n@127.0.0.1:$(kafka_ctrl_port $n)"; done
	for ((n = 1; n <= KAFKA_NODES; n++)); do
		port=$(kafka_port $n) ctrl=$(kafka_ctrl_port $n) sasl=$(kafka_sasl_port $n)
		cat >"$(server_conf $n)" <<EOF
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$ctrl,SASL_SSL://127.0.0.1:$sasl
advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASL_SSL://127.0.0.1:$sasl
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$KAFKA_SASL_USER="$KAFKA_SASL_PASSWORD";
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$STACK/etc/kafka-sasl/broker.pem
listener.name.sasl_ssl.ssl.client.auth=none
log.dirs=$(kafka_data $n)
num.partitions=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=$REPLICAS
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=$REPLICAS
transaction.state.log.min.isr=$MIN_ISR
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=$REPLICAS
share.coordinator.state.topic.min.isr=$MIN_ISR
share.coordinator.state.topic.num.partitions=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
log.flush.interval.messages=100000
EOF
		if ((KAFKA_NODES > 1)); then
			# The cluster: every topic on 3 nodes, a write acknowledged by
			# acks=all once 2 have it, never an out-of-sync replica as leader
			# (it would lose acknowledged records). A dead node leaves the
			# quorum's view after 4 s (default 9 s) and a stalled follower
			# leaves the ISR after 10 s (default 30 s): both bound the time
			# a killed or frozen broker holds up acks=all writes.
			cat >>"$(server_conf $n)" <<EOF
default.replication.factor=$REPLICAS
min.insync.replicas=$MIN_ISR
unclean.leader.election.enable=false
broker.session.timeout.ms=$KAFKA_SESSION_TIMEOUT_MS
broker.heartbeat.interval.ms=$KAFKA_HEARTBEAT_MS
controller.quorum.fetch.timeout.ms=$KAFKA_QUORUM_FETCH_TIMEOUT_MS
transaction.abort.timed.out.transaction.cleanup.interval.ms=$KAFKA_TXN_ABORT_INTERVAL_MS
replica.lag.time.max.ms=10000
EOF
		fi
	done
	for ((n = 1; n <= CONNECT_WORKERS; n++)); do
		port=$(connect_port $n)
		cat >"$(connect_conf $n)" <<EOF
bootstrap.servers=$(kafka_bootstrap)
group.id=outboxctl-connect
listeners=http://127.0.0.1:$port
rest.advertised.host.name=127.0.0.1
rest.advertised.port=$port
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=false
value.converter.schemas.enable=false
config.storage.topic=_connect-configs
offset.storage.topic=_connect-offsets
status.storage.topic=_connect-status
config.storage.replication.factor=$REPLICAS
offset.storage.replication.factor=$REPLICAS
status.storage.replication.factor=$REPLICAS
offset.storage.partitions=1
status.storage.partitions=1
offset.flush.interval.ms=1000
scheduled.rebalance.max.delay.ms=$REBALANCE_DELAY_MS
plugin.path=$STACK/plugins
plugin.discovery=service_load
config.providers=file,env
config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
EOF
		if ((CONNECT_WORKERS > 1 || KAFKA_NODES > 1)); then
			# The cluster's workers: exactly-once source delivery (KIP-618)
			# available to connectors that ask for it, and source producers
			# that give up on a dead leader after 10 s (default 30 s).
			cat >>"$(connect_conf $n)" <<EOF
exactly.once.source.support=enabled
producer.request.timeout.ms=10000
producer.transaction.timeout.ms=$CONNECT_TXN_TIMEOUT_MS
EOF
			if [[ -n $CONNECT_REQUEST_TIMEOUT_MS ]]; then
				echo "request.timeout.ms=$CONNECT_REQUEST_TIMEOUT_MS" >>"$(connect_conf $n)"
			fi
		fi
	done
	cat >"$STACK/etc/log4j2.properties" <<'EOF'
status = warn
name = outboxctl-stack
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %X{connector.context}%m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.ak.name = org.apache.kafka
logger.ak.level = WARN
logger.connectruntime.name = org.apache.kafka.connect.runtime
logger.connectruntime.level = INFO
logger.dbz.name = io.debezium
logger.dbz.level = INFO
logger.reflections.name = org.reflections
logger.reflections.level = ERROR
EOF
}

# ---------------------------------------------------------------- start

JOPTS=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true)

# launch SERVICE CMD...: start CMD in its own session, record its pid.
launch() {
	local svc=$1; shift
	setsid "$@" >>"$(logfile "$svc")" 2>&1 </dev/null &
	echo $! >"$(pidfile "$svc")"
}

# db_root prints where the database servers keep their data, sockets and
# (PostgreSQL) log. They run as the postgres and mysql users, which must reach
# those directories: when $STACK lies below a directory they cannot traverse
# (a checkout under /root, say), a directory of their own under
# /var/lib/outboxctl-stack is used instead, and the log is linked into logs/.
db_root() {
	if runuser -u postgres -- test -x "$STACK" 2>/dev/null && runuser -u mysql -- test -x "$STACK" 2>/dev/null; then
		echo "$STACK"
	else
		echo "/var/lib/outboxctl-stack/$(printf %s "$STACK" | sha256sum | cut -c1-12)"
	fi
}

start_postgres() {
	local root data log
	root=$(db_root)
	data=$root/data/pg
	log=$root/logs/postgres.log
	mkdir -p "$root/data" "$root/logs"
	chmod 755 "$root" "$root/data" "$root/logs"
	if [[ ! -s $data/PG_VERSION ]]; then
		install -d -o postgres "$data"
		runuser -u postgres -- "$PG_BIN/initdb" -D "$data" -A trust -U postgres >>"$(logfile postgres)" 2>&1
	fi
	install -d -o postgres "$root/run/pgsock"
	touch "$log" && chown postgres "$log"
	[[ $log == "$(logfile postgres)" ]] || ln -sfn "$log" "$(logfile postgres)"
	# pg_ctl -w waits for the server; postgres writes its own pid file.
	# synchronous_commit=on, as in production: with it off, a commit returns
	# before its WAL is flushed, and the logical walsender only sends flushed
	# WAL, so every CDC event would wait for the WAL writer (wal_writer_delay,
	# 200 ms) and the latency figures would be the dev stack's, not Debezium's.
	# fsync=off and full_page_writes=off stay (speed; no crash safety of the
	# data directory against power loss, which a dev stack does not need).
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t "$WAIT_DB" \
		-o "-c wal_level=logical -c max_wal_senders=20 -c max_replication_slots=40 -c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=$root/run/pgsock -c fsync=off -c synchronous_commit=on -c full_page_writes=off" \
		start >/dev/null
	head -1 "$data/postmaster.pid" >"$(pidfile postgres)"
}

start_mariadb() {
	local root data
	root=$(db_root)
	data=$root/data/mariadb
	mkdir -p "$root/data"
	chmod 755 "$root" "$root/data"
	if [[ ! -d $data/mysql ]]; then
		mkdir -p "$data"; chown mysql:mysql "$data"
		mariadb-install-db --user=mysql --datadir="$data" --auth-root-authentication-method=normal \
			--skip-test-db >>"$(logfile mariadb)" 2>&1
	fi
	install -d -o mysql -g mysql "$root/run/mariadb"
	launch mariadb /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$data" \
		--socket="$root/run/mariadb/mariadb.sock" --pid-file="$root/run/mariadb/mariadb.server.pid" \
		--port=$MARIA_PORT --bind-address=127.0.0.1 --skip-name-resolve \
		--server-id=1 --log-bin="$data/mysql-bin" --binlog-format=ROW --binlog-row-image=FULL \
		--log-bin-compress=OFF --binlog-annotate-row-events=ON \
		--innodb-flush-log-at-trx-commit=2 --sync-binlog=0 --max-connections=300 --binlog-expire-logs-seconds=259200
}

# ensure_kafka_tls makes, once per stack directory, a CA and the broker's
# certificate (for 127.0.0.1 and localhost) with openssl, and writes
# $STACK/etc/kafka-sasl/listener.env, which the secured-Kafka tests read:
# the listener's address, its user and password and the CA file.
ensure_kafka_tls() {
	local d=$STACK/etc/kafka-sasl
	mkdir -p "$d"
	if [[ ! -s $d/broker.pem || ! -s $d/ca.pem ]]; then
		command -v openssl >/dev/null 2>&1 || die "kafka: openssl is needed for the SASL_SSL listener's certificates"
		log "kafka: making the SASL_SSL listener's CA and broker certificate"
		(
			cd "$d" && umask 077
			openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=outboxctl devstack CA" \
				-keyout ca.key -out ca.pem
			openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=localhost" -keyout broker.key -out broker.csr
			printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' >broker.ext
			openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 -sha256 \
				-extfile broker.ext -out broker.crt
			# Kafka's PEM keystore: the unencrypted PKCS#8 key, then the chain.
			openssl pkcs8 -topk8 -nocrypt -in broker.key -out broker.pk8
			cat broker.pk8 broker.crt ca.pem >broker.pem
			rm -f broker.csr broker.ext broker.pk8
			chmod 644 ca.pem
		) >>"$(logfile kafka-tls)" 2>&1 || die "kafka: openssl failed (log: $(logfile kafka-tls))"
	fi
	printf '%s\n' "bootstrap=127.0.0.1:$KAFKA_SASL_PORT" "username=$KAFKA_SASL_USER" "password=$KAFKA_SASL_PASSWORD" \
		"ca=$d/ca.pem" "mechanisms=SCRAM-SHA-256 SCRAM-SHA-512 PLAIN" >"$d/listener.env"
}

# add_scram_users creates (or updates) the SCRAM-SHA-256 and -512
# credentials of the SASL user with Kafka's own kafka-configs tool
# (ConfigCommand) over the PLAINTEXT listener; the broker keeps them in its
# metadata log.
add_scram_users() {
	local mech marker=$STACK/data/.scram-users
	# The credentials live in the metadata log under data/: once made, a
	# restart (the crash suites restart brokers) need not make them again.
	if [[ -f $marker ]]; then return 0; fi
	: >"$(logfile kafka-scram)"
	# One mechanism per call: a request may alter a user's credential once.
	for mech in SCRAM-SHA-256 SCRAM-SHA-512; do
		java "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" -cp "$STACK/lib/*" \
			kafka.admin.ConfigCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" --alter \
			--add-config "$mech=[iterations=4096,password=$KAFKA_SASL_PASSWORD]" \
			--entity-type users --entity-name "$KAFKA_SASL_USER" >>"$(logfile kafka-scram)" 2>&1 ||
			{ tail -5 "$(logfile kafka-scram)" >&2; die "kafka: could not create the $mech user (log: $(logfile kafka-scram))"; }
	done
	touch "$marker"
	log "kafka: SCRAM users ready on the SASL_SSL listener 127.0.0.1:$KAFKA_SASL_PORT"
}

# Heaps: a node of the cluster gets less (3 nodes and 2 workers on 2 cores).
kafka_heap() { if ((KAFKA_NODES > 1)); then echo "-Xms128m -Xmx384m"; else echo "-Xms256m -Xmx512m"; fi; }
connect_heap() { if ((CONNECT_WORKERS > 1)); then echo "-Xms128m -Xmx640m"; else echo "-Xms256m -Xmx1g"; fi; }

start_kafka() {
	local inst=${1:-kafka} n data cid
	n=$(node_of "$inst")
	data=$(kafka_data "$n")
	mkdir -p "$data"
	if [[ ! -f $data/meta.properties ]]; then
		# Every node of a cluster is formatted with the same cluster id.
		if [[ -s $STACK/etc/cluster-id ]]; then
			cid=$(cat "$STACK/etc/cluster-id")
		else
			cid=$(java "${JOPTS[@]}" -cp "$STACK/lib/*" kafka.tools.StorageTool random-uuid 2>>"$(logfile "$inst")" | tail -1)
			echo "$cid" >"$STACK/etc/cluster-id"
		fi
		java "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" -cp "$STACK/lib/*" \
			kafka.tools.StorageTool format -t "$cid" -c "$(server_conf "$n")" --ignore-formatted \
			>>"$(logfile "$inst")" 2>&1 || return 1
	fi
	: >"$(logfile "$inst")"
	resolve_java21
	# shellcheck disable=SC2046 # the heap flags are words
	launch "$inst" "${JAVA21:-$(command -v java)}" $(kafka_heap) "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" \
		-Dkafka.logs.dir="$STACK/logs" -cp "$STACK/lib/*" kafka.Kafka "$(server_conf "$n")"
}

start_connect() {
	local inst=${1:-connect}
	resolve_java21
	# shellcheck disable=SC2046 # the heap flags are words
	launch "$inst" "${JAVA21:-$(command -v java)}" $(connect_heap) "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" \
		-Dkafka.logs.dir="$STACK/logs" -cp "$STACK/lib/*" \
		org.apache.kafka.connect.cli.ConnectDistributed "$(connect_conf "$(node_of "$inst")")"
}

# The JVMs run on the newest JDK >= 21 installed (the machine image ships
# Temurin 25 beside its default Java 17): Apicurio Registry 3.3 is compiled
# for Java 21, and Debezium's own container images run Connect on Java 21,
# whose Double.toString (JDK 19+) is what the eventrouter emulator predicts.
# Kafka and Connect fall back to the default java when there is none.
java21() {
	local j v best="" bestv=0
	for j in ${OUTBOX_REGISTRY_JAVA:-} /usr/lib/jvm/*/bin/java "$(command -v java)"; do
		[[ -x $j ]] || continue
		v=$("$j" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
		v=${v%%.*}
		if [[ $v =~ ^[0-9]+$ ]] && ((v >= 21 && v > bestv)); then best=$j; bestv=$v; fi
	done
	[[ -n $best ]] || return 1
	echo "$best"
}

# resolve_java21 sets JAVA21 once per run, and only when a JVM is started:
# each probe of a JDK starts a JVM.
resolve_java21() {
	[[ -n $JAVA21_RESOLVED ]] && return 0
	JAVA21=$(java21) || JAVA21=""
	JAVA21_RESOLVED=1
}

start_registry() {
	resolve_java21
	[[ -n $JAVA21 ]] || {
		echo "no Java >= 21 found in /usr/lib/jvm (Apicurio Registry 3.3 needs it); set OUTBOX_REGISTRY_JAVA" >>"$(logfile registry)"
		return 1
	}
	launch registry "$JAVA21" -Xms128m -Xmx512m "${JOPTS[@]}" \
		-Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port=$REGISTRY_PORT \
		-Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port=$((9000 + PORT_OFFSET)) \
		-Dquarkus.log.level=WARN \
		-Dapicurio.rest.deletion.group.enabled=true \
		-Dapicurio.rest.deletion.artifact.enabled=true \
		-Dapicurio.rest.deletion.artifact-version.enabled=true \
		-Dapicurio.rules.global.compatibility=BACKWARD \
		-jar "$STACK/apicurio/quarkus-run.jar"
}

# wait_healthy SERVICE SECONDS
wait_healthy() {
	local svc=$1 limit=$2 start=$SECONDS
	while ! healthy "$svc"; do
		if [[ $svc != postgres ]] && ! pid_alive "$svc"; then
			fail_service "$svc" "exited during start-up"
		fi
		if ((SECONDS - start >= limit)); then
			fail_service "$svc" "not healthy after ${limit}s"
		fi
		sleep 1
	done
	log "$svc healthy ($((SECONDS - start))s)"
}

fail_service() {
	local svc=$1 why=$2
	log "ERROR: $svc $why; last lines of $(logfile "$svc"):"
	tail -n 40 "$(logfile "$svc")" >&2 || true
	log "stopping everything this run started"
	for s in "${STARTED[@]}"; do stop_service "$s"; done
	exit 1
}

# start_service SERVICE: no-op when already running and healthy.
STARTED=()
start_service() {
	local svc=$1 port
	port=$(port_of "$svc")
	if pid_alive "$svc"; then
		return 0
	fi
	if port_open "$port"; then
		die "$svc: port 127.0.0.1:$port is already taken by another process (not started by this stack: $(ss -ltnpH "sport = :$port" 2>/dev/null | awk '{print $NF}' | head -1))"
	fi
	log "starting $svc on 127.0.0.1:$port"
	STARTED+=("$svc")
	"start_${svc%-[0-9]}" "$svc" || fail_service "$svc" "failed to start"
}

cmd_up() {
	local t0=$SECONDS
	mkdir -p "$STACK"/{logs,run,data,etc}
	ensure_packages
	ensure_artifacts
	write_configs
	if selected kafka; then ensure_kafka_tls; fi
	printf '%s\n' "${SERVICES[*]}" >"$STACK/etc/services"
	printf 'kafka_nodes=%s\nconnect_workers=%s\n' "$KAFKA_NODES" "$CONNECT_WORKERS" >"$STACK/etc/topology"
	if selected postgres; then start_service postgres; fi
	if selected mariadb; then start_service mariadb; fi
	local inst
	if selected kafka; then for inst in $(instances kafka); do start_service "$inst"; done; fi
	if selected postgres; then wait_healthy postgres "$WAIT_DB"; fi
	if selected mariadb; then wait_healthy mariadb "$WAIT_DB"; fi
	if selected kafka; then
		for inst in $(instances kafka); do wait_healthy "$inst" "$WAIT_KAFKA"; done
		add_scram_users
		port_open $KAFKA_SASL_PORT ||
			log "WARNING: kafka has no SASL_SSL listener on 127.0.0.1:$KAFKA_SASL_PORT (it was started by an older stack.sh): restart it (down, then up) for the secured-Kafka tests"
	fi
	if selected connect; then for inst in $(instances connect); do start_service "$inst"; done; fi
	if selected registry; then start_service registry; fi
	if selected registry; then wait_healthy registry "$WAIT_REGISTRY"; fi
	if selected connect; then for inst in $(instances connect); do wait_healthy "$inst" "$WAIT_CONNECT"; done; fi
	log "stack up in $((SECONDS - t0))s (${SERVICES[*]}; kafka nodes $KAFKA_NODES, connect workers $CONNECT_WORKERS; bootstrap $(kafka_bootstrap); dir: $STACK)"
}

# ---------------------------------------------------------------- stop

stop_service() {
	local svc=$1 f pid
	f=$(pidfile "$svc")
	[[ -s $f ]] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		log "stopping $svc (pid $pid)"
		if [[ $svc == postgres ]]; then
			runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$(db_root)/data/pg" -m fast -w stop >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
		else
			kill "$pid" 2>/dev/null || true
		fi
		for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		if kill -0 "$pid" 2>/dev/null; then
			log "$svc did not stop in 30s, killing pid $pid"
			kill -9 "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$f"
}

cmd_down() {
	local i inst
	for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
		for inst in $(instances "${SERVICES[i]}"); do stop_service "$inst"; done
	done
}

cmd_status() {
	local svc rc=0 state
	for svc in $(for s in "${SERVICES[@]}"; do instances "$s"; done); do
		if pid_alive "$svc"; then
			if healthy "$svc"; then state="healthy"; else state="running, NOT healthy"; rc=1; fi
			printf '%-9s %-22s pid %-7s 127.0.0.1:%s\n' "$svc" "$state" "$(cat "$(pidfile "$svc")")" "$(port_of "$svc")"
		else
			printf '%-9s %-22s\n' "$svc" "stopped"
			rc=1
		fi
	done
	return $rc
}

cmd_logs() {
	if (($#)); then
		tail -n 100 "$(logfile "$1")"
	else
		local svc
		for svc in $(for s in "${SERVICES[@]}"; do instances "$s"; done); do
			echo "==> $(logfile "$svc") <=="
			tail -n 20 "$(logfile "$svc")" 2>/dev/null || true
		done
	fi
}

cmd_clean() {
	cmd_down
	local root
	root=$(db_root)
	[[ $root == "$STACK" ]] || rm -rf "$root"
	rm -rf "$STACK/data" "$STACK/logs" "$STACK/run" "$STACK/etc"
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
logs) shift; cmd_logs "$@" ;;
clean) cmd_clean ;;
*) echo "usage: $0 up|down|status|logs [SERVICE]|clean" >&2; exit 2 ;;
esac
