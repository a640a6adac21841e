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
	postgres) echo $PG_PORT ;; mariadb) echo $MARIA_PORT ;; kafka) echo $KAFKA_PORT ;;
	connect) echo $CONNECT_PORT ;; registry) echo $REGISTRY_PORT ;;
	esac
}

# healthy SERVICE: does the service really answer?
healthy() {
	case $1 in
	postgres) "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p $PG_PORT -U postgres ;;
	mariadb) mariadb-admin --protocol=tcp -h127.0.0.1 -P$MARIA_PORT -uroot status >/dev/null 2>&1 ;;
	kafka) port_open $KAFKA_PORT && grep -q 'Kafka Server started' "$(logfile kafka)" 2>/dev/null ;;
	connect)
		local plugins
		plugins=$(curl -sf --max-time 5 "http://127.0.0.1:$CONNECT_PORT/connector-plugins" 2>/dev/null) || return 1
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

write_configs() {
	mkdir -p "$STACK/etc"
	cat >"$STACK/etc/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CTRL_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CTRL_PORT,SASL_SSL://127.0.0.1:$KAFKA_SASL_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,SASL_SSL://127.0.0.1:$KAFKA_SASL_PORT
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
log.dirs=$STACK/data/kafka
num.partitions=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
share.coordinator.state.topic.num.partitions=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=2
log.flush.interval.messages=100000
EOF
	cat >"$STACK/etc/connect-distributed.properties" <<EOF
bootstrap.servers=127.0.0.1:$KAFKA_PORT
group.id=outboxctl-connect
listeners=http://127.0.0.1:$CONNECT_PORT
rest.advertised.host.name=127.0.0.1
rest.advertised.port=$CONNECT_PORT
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=false
value.converter.schemas.enable=false
config.storage.topic=_connect-configs
offset.storage.topic=_connect-offsets
status.storage.topic=_connect-status
config.storage.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
offset.storage.partitions=1
status.storage.partitions=1
offset.flush.interval.ms=1000
scheduled.rebalance.max.delay.ms=0
plugin.path=$STACK/plugins
plugin.discovery=service_load
config.providers=file,env
config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
EOF
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
	local mech
	: >"$(logfile kafka-scram)"
	# One mechanism per call: a request may alter a user's credential once.
	for mech in SCRAM-SHA-256 SCRAM-SHA-512; do
		java "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" -cp "$STACK/lib/*" \
			kafka.admin.ConfigCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" --alter \
			--add-config "$mech=[iterations=4096,password=$KAFKA_SASL_PASSWORD]" \
			--entity-type users --entity-name "$KAFKA_SASL_USER" >>"$(logfile kafka-scram)" 2>&1 ||
			{ tail -5 "$(logfile kafka-scram)" >&2; die "kafka: could not create the $mech user (log: $(logfile kafka-scram))"; }
	done
	log "kafka: SCRAM users ready on the SASL_SSL listener 127.0.0.1:$KAFKA_SASL_PORT"
}

start_kafka() {
	mkdir -p "$STACK/data/kafka"
	if [[ ! -f $STACK/data/kafka/meta.properties ]]; then
		local cid
		cid=$(java "${JOPTS[@]}" -cp "$STACK/lib/*" kafka.tools.StorageTool random-uuid 2>>"$(logfile kafka)" | tail -1)
		java "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" -cp "$STACK/lib/*" \
			kafka.tools.StorageTool format -t "$cid" -c "$STACK/etc/server.properties" --ignore-formatted \
			>>"$(logfile kafka)" 2>&1 || return 1
	fi
	: >"$(logfile kafka)"
	resolve_java21
	launch kafka "${JAVA21:-$(command -v java)}" -Xms256m -Xmx512m "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" \
		-Dkafka.logs.dir="$STACK/logs" -cp "$STACK/lib/*" kafka.Kafka "$STACK/etc/server.properties"
}

start_connect() {
	resolve_java21
	launch connect "${JAVA21:-$(command -v java)}" -Xms256m -Xmx1g "${JOPTS[@]}" -Dlog4j2.configurationFile="$STACK/etc/log4j2.properties" \
		-Dkafka.logs.dir="$STACK/logs" -cp "$STACK/lib/*" \
		org.apache.kafka.connect.cli.ConnectDistributed "$STACK/etc/connect-distributed.properties"
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
	"start_$svc" || fail_service "$svc" "failed to start"
}

cmd_up() {
	local t0=$SECONDS
	mkdir -p "$STACK"/{logs,run,data,etc}
	ensure_packages
	ensure_artifacts
	write_configs
	if selected kafka; then ensure_kafka_tls; fi
	printf '%s\n' "${SERVICES[*]}" >"$STACK/etc/services"
	if selected postgres; then start_service postgres; fi
	if selected mariadb; then start_service mariadb; fi
	if selected kafka; then start_service kafka; fi
	if selected postgres; then wait_healthy postgres "$WAIT_DB"; fi
	if selected mariadb; then wait_healthy mariadb "$WAIT_DB"; fi
	if selected kafka; then
		wait_healthy kafka "$WAIT_KAFKA"
		add_scram_users
		port_open $KAFKA_SASL_PORT ||
			log "WARNING: kafka has no SASL_SSL listener on 127.0.0.1:$KAFKA_SASL_PORT (it was started by an older stack.sh): restart it (down, then up) for the secured-Kafka tests"
	fi
	if selected connect; then start_service connect; fi
	if selected registry; then start_service registry; fi
	if selected registry; then wait_healthy registry "$WAIT_REGISTRY"; fi
	if selected connect; then wait_healthy connect "$WAIT_CONNECT"; fi
	log "stack up in $((SECONDS - t0))s (${SERVICES[*]}; dir: $STACK)"
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
	local i
	for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do stop_service "${SERVICES[i]}"; done
}

cmd_status() {
	local svc rc=0 state
	for svc in "${SERVICES[@]}"; do
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
		for svc in "${SERVICES[@]}"; do
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
