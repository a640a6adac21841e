#!/usr/bin/env bash
# make bench-publishers: one run of `outboxctl bench` comparing the three ways
# to publish an outbox, on the same stack, the same load and the same
# consumer: the polling relay with a 100 ms poll, the relay woken by
# PostgreSQL LISTEN/NOTIFY, and Debezium with the generated `latency`
# profile. Each publisher gets its own outbox table in one database; rows at
# 100 and 1,000 events/s with and without the PostgreSQL inbox (the rows
# without it also run the bare consumer of --baseline: the SDK's overhead),
# then --rate max. The JSON of every row goes to $OUT (default
# bench-publishers/<UTC time>), the markdown table of docs/benchmarks.md to
# stdout.
#
# Needs the native stack (make stack-up) or any stack at the OUTBOX_*
# endpoints; the spec's database connection comes from OUTBOX_CONNECT_PG_*.
#   scripts/bench-publishers.sh [--quick]   # --quick: 3 s rows, no max search
set -euo pipefail
cd "$(dirname "$0")/.."
OB=${OUTBOXCTL:-bin/outboxctl}
DUR=${BENCH_DURATION:-10s}
STEP=${BENCH_STEP:-5s}
MAX=1
if [[ ${1:-} == --quick ]]; then DUR=3s; MAX=0; fi
OUT=${OUT:-bench-publishers/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export BENCH_PG_PASSWORD=${BENCH_PG_PASSWORD:-unused}
# A context file of the user's must not redirect the run.
export XDG_CONFIG_HOME=$WORK/xdg OUTBOXCTL_CONTEXT=

SPEC=$WORK/outbox.yaml
cat >"$SPEC" <<EOF
apiVersion: outboxctl.dev/v1alpha1
kafka:
  bootstrapServers: ${OUTBOX_BOOTSTRAP_SERVERS:-127.0.0.1:19092}
outboxes:
  - name: benchrelay
    database: &db
      kind: postgres
      connection: {host: "${OUTBOX_CONNECT_PG_HOST:-127.0.0.1}", port: ${OUTBOX_CONNECT_PG_PORT:-15432}, user: postgres, password: "\${env:BENCH_PG_PASSWORD}", dbname: outbox_benchpub}
    table: outbox_relay
    payloadFormat: json
    relay:
      notify: benchpub_relay
  - name: benchcdc
    database: *db
    table: outbox_cdc
    payloadFormat: json
    connector:
      profile: latency
EOF

log() { printf '== %s\n' "$*" >&2; }
log "provision and deploy ($SPEC)"
"$OB" provision -f "$SPEC" --database >&2
"$OB" deploy -f "$SPEC" --timeout 2m >&2

# row NAME ARGS...: one bench run, its JSON in $OUT/NAME.json, the 1-minute
# load average before it in $OUT/NAME.load.
row() {
	local name=$1
	shift
	cut -d' ' -f1 /proc/loadavg >"$OUT/$name.load"
	log "$name: bench $*"
	local rc=0
	"$OB" bench -f "$SPEC" -o json "$@" >"$OUT/$name.json" || rc=$?
	if [[ $rc != 0 && $rc != 3 ]]; then
		echo "bench $name failed (exit $rc)" >&2
		exit "$rc"
	fi
}

declare -A PUB=(
	[relay-100ms]="--outbox benchrelay --publisher relay --relay-poll-interval 100ms"
	[relay-listen]="--outbox benchrelay --publisher relay --relay-notify"
	[cdc-latency]="--outbox benchcdc --publisher cdc"
)
ORDER=(relay-100ms relay-listen cdc-latency)
for p in "${ORDER[@]}"; do
	for rate in 100 1000; do
		# shellcheck disable=SC2086
		row "$p-$rate" ${PUB[$p]} --rate "$rate" --duration "$DUR" --baseline
		# shellcheck disable=SC2086
		row "$p-$rate-inbox" ${PUB[$p]} --rate "$rate" --duration "$DUR" --inbox
	done
done
if [[ $MAX == 1 ]]; then
	for p in "${ORDER[@]}"; do
		# shellcheck disable=SC2086
		row "$p-max" ${PUB[$p]} --rate max --duration "$STEP"
	done
	row "cdc-latency-max-inbox" ${PUB[cdc-latency]} --rate max --duration "$STEP" --inbox --batch 100
fi

# The table: one line per row, in run order.
{
	echo "| publisher | rate (events/s) | inbox | load before | load after | bench CPU % | writer max delay ms | SDK overhead p50 ms | sent | handled | lost | dup. | reord. | achieved/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for f in $(ls -tr "$OUT"/*.json); do
		n=$(basename "$f" .json)
		case $n in relay-100ms*) p="relay, 100 ms poll" ;; relay-listen*) p="relay, LISTEN/NOTIFY" ;; cdc-latency*) p="Debezium, profile latency" ;; esac
		jq -r --arg p "$p" --arg load "$(cat "$OUT/$n.load")" '
			def f: if . == null then "–" else (. * 10 | round / 10 | tostring) end;
			def inbox: if .setup.inbox then (if (.setup.batch // 1) > 1 then "PostgreSQL, batch \(.setup.batch)" else "PostgreSQL" end) else "no" end;
			(if .search then "max: \(.search.max_sustained)" else (.rate_target | tostring) end) as $rate |
			"| \($p) | \($rate) | \(inbox) | \($load) | \(.load1 | f) | \(.cpu_percent | round) | \(.max_send_delay_ms | f) | \(.sdk_overhead_p50_ms | f) | \(.sent) | \(.handled) | \(.lost) | \(.duplicates) | \(.reordered) | \(.rate_achieved | f) | \(.latency_ms.p50 | f) | \(.latency_ms.p90 | f) | \(.latency_ms.p99 | f) | \(.latency_ms.p999 | f) | \(.latency_ms.max | f) |"' "$f"
	done
} | tee "$OUT/table.md"
