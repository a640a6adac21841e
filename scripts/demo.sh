#!/usr/bin/env bash
# make demo: the whole outbox flow on the native stack (make stack-up), from
# one spec (examples/demo/outbox.yaml):
#   validate -> provision (databases, outbox tables, publication, CDC users,
#   topics) -> schema register -> plan -> deploy (until RUNNING) -> the
#   services write orders and payments with their outbox events in one
#   transaction each, a billing consumer handles them -> status -> a second
#   deploy is a no-op.
# Re-running it is safe: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
OB=${OUTBOXCTL:-bin/outboxctl}
SPEC=examples/demo/outbox.yaml
export DEMO_DB_PASSWORD=${DEMO_DB_PASSWORD:-demo-secret}

# Under docker compose (export devstack/compose.env) Kafka Connect sees the
# databases by service name: run on a copy of the spec with the hosts and
# ports of OUTBOX_CONNECT_PG_* / OUTBOX_CONNECT_MARIADB_*. Kafka as Connect
# sees it comes from OUTBOX_CONNECT_BOOTSTRAP_SERVERS, which outboxctl reads
# itself. `scripts/demo.sh --print-spec` prints the spec the demo runs.
connect_spec() {
	awk -v pgh="${OUTBOX_CONNECT_PG_HOST:-}" -v pgp="${OUTBOX_CONNECT_PG_PORT:-}" \
		-v mah="${OUTBOX_CONNECT_MARIADB_HOST:-}" -v map="${OUTBOX_CONNECT_MARIADB_PORT:-}" '
		/kind: postgres/ { db = "pg" }
		/kind: mariadb/  { db = "ma" }
		/^ *host: / { h = (db == "pg") ? pgh : mah; if (h != "") sub(/host: .*/, "host: " h) }
		/^ *port: / { p = (db == "pg") ? pgp : map; if (p != "") sub(/port: .*/, "port: " p) }
		{ print }' "$1"
}
if [[ -n ${OUTBOX_CONNECT_PG_HOST:-}${OUTBOX_CONNECT_PG_PORT:-}${OUTBOX_CONNECT_MARIADB_HOST:-}${OUTBOX_CONNECT_MARIADB_PORT:-} ]]; then
	COPY=examples/demo/.outbox.connect.yaml # beside the original: schema paths stay relative
	connect_spec "$SPEC" >"$COPY"
	trap 'rm -f "$COPY"' EXIT
	SPEC=$COPY
fi
if [[ ${1:-} == --print-spec ]]; then
	cat "$SPEC"
	exit 0
fi

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "outboxctl validate -f $SPEC"
"$OB" validate -f "$SPEC"

step "outboxctl generate -f $SPEC -o yaml   (the PostgreSQL connector, abridged)"
"$OB" generate -f "$SPEC" -o yaml | sed -n '1,40p'

step "outboxctl provision -f $SPEC"
"$OB" provision -f "$SPEC"

step "outboxctl schema register -f $SPEC"
"$OB" schema register -f "$SPEC"

step "outboxctl plan -f $SPEC"
rc=0; "$OB" plan -f "$SPEC" --detailed-exitcode || rc=$?
[[ $rc == 0 || $rc == 4 ]] || exit "$rc"

step "outboxctl deploy -f $SPEC"
"$OB" deploy -f "$SPEC"

step "the services write, the billing consumer reads"
go run ./examples/demo/app -f "$SPEC"

step "outboxctl connectors status"
"$OB" connectors status demo-orders-outbox demo-payments-outbox

step "outboxctl deploy -f $SPEC   (again: nothing to do, no write)"
"$OB" deploy -f "$SPEC"
