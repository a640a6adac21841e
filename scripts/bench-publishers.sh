#!/usr/bin/env bash
# make bench-publishers: one run of `outboxctl bench` comparing the three ways
# to publish an outbox, on the same stack, the same load and the same
# consumer: the polling relay with a 100 ms poll, the relay woken by
# PostgreSQL LISTEN/NOTIFY, and Debezium with the generated `latency`
# profile; the LISTEN/NOTIFY relay also as a separate `outboxctl relay`
# process (--relay-process, rows relay-listen-proc). Each publisher gets its
# own outbox table in one database; rows at 100 and 1,000 events/s with and
# without the PostgreSQL inbox (the rows without it also run the bare
# consumer of --baseline: the SDK's overhead), then --rate max, and the
# consumer alone (BenchmarkConsumerThroughput, 1 partition, prefilled topic,
# HandleBatch inbox with an effect row per record; needs the Go toolchain).
# The JSON of every row goes to $OUT (default bench-publishers/<UTC time>),
# the markdown table of docs/benchmarks.md to stdout, then the goals table of
# issue #29 with each ratio computed from this run's rows (goals.md).
#
# Needs the native stack (make stack-up) or any stack at the OUTBOX_*
# endpoints; the spec's database connection comes from OUTBOX_CONNECT_PG_*.
#   scripts/bench-publishers.sh [--quick]   # --quick: 3 s rows, no max search
# BENCH_PREFIX prefixes the outboxes, database and channel (a run of one's
# own on a shared stack).
set -euo pipefail
cd "$(dirname "$0")/.."
OB=${OUTBOXCTL:-bin/outboxctl}
DUR=${BENCH_DURATION:-10s}
STEP=${BENCH_STEP:-5s}
MAX=1
if [[ ${1:-} == --quick ]]; then DUR=3s; MAX=0; fi
PFX=${BENCH_PREFIX:-}
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
  - name: ${PFX}benchrelay
    database: &db
      kind: postgres
      connection: {host: "${OUTBOX_CONNECT_PG_HOST:-127.0.0.1}", port: ${OUTBOX_CONNECT_PG_PORT:-15432}, user: postgres, password: "\${env:BENCH_PG_PASSWORD}", dbname: outbox_${PFX}benchpub}
    table: outbox_relay
    payloadFormat: json
    relay:
      notify: ${PFX}benchpub_relay
  - name: ${PFX}benchcdc
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
	[relay-100ms]="--outbox ${PFX}benchrelay --publisher relay --relay-poll-interval 100ms"
	[relay-listen]="--outbox ${PFX}benchrelay --publisher relay --relay-notify"
	[relay-listen-proc]="--outbox ${PFX}benchrelay --publisher relay --relay-notify --relay-process"
	[cdc-latency]="--outbox ${PFX}benchcdc --publisher cdc"
)
ORDER=(relay-100ms relay-listen relay-listen-proc cdc-latency)
for p in "${ORDER[@]}"; do
	for rate in 100 1000; do
		# shellcheck disable=SC2086
		row "$p-$rate" ${PUB[$p]} --rate "$rate" --duration "$DUR" --baseline
		# shellcheck disable=SC2086
		row "$p-$rate-inbox" ${PUB[$p]} --rate "$rate" --duration "$DUR" --inbox
	done
	# the batched inbox (HandleBatch, one INSERT per batch) at 1,000/s
	# shellcheck disable=SC2086
	row "$p-1000-inbox-batch" ${PUB[$p]} --rate 1000 --duration "$DUR" --inbox --batch 100
done
if [[ $MAX == 1 ]]; then
	for p in "${ORDER[@]}"; do
		# shellcheck disable=SC2086
		row "$p-max" ${PUB[$p]} --rate max --duration "$STEP"
	done
	row "cdc-latency-max-inbox" ${PUB[cdc-latency]} --rate max --duration "$STEP" --inbox --batch 100
fi

# The consumer alone: the Go benchmark (bench has no consumer-only mode),
# its records/s in $OUT/consumer-alone.txt.
log "consumer alone: BenchmarkConsumerThroughput/partitions=1/batch=200/handlebatch"
cut -d' ' -f1 /proc/loadavg >"$OUT/consumer-alone.load"
${GO:-go} test -tags integration -count=1 -run '^$' -bench 'ConsumerThroughput/partitions=1/batch=200/handlebatch$' -benchtime 1x ./consumer/ >"$OUT/consumer-alone.out" 2>&1 || true
awk '/records\/s/ { for (i = 2; i <= NF; i++) if ($i == "records/s") print $(i-1) }' "$OUT/consumer-alone.out" | head -1 >"$OUT/consumer-alone.txt"

# The table: one line per row, in run order.
{
	echo "| publisher | rate (events/s) | inbox | load before | load after | bench CPU % | writer max delay ms | SDK overhead p50 ms | sent | handled | lost | dup. | reord. | achieved/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for f in $(ls -tr "$OUT"/*.json); do
		n=$(basename "$f" .json)
		case $n in relay-100ms*) p="relay, 100 ms poll" ;; relay-listen-proc*) p="relay, LISTEN/NOTIFY, separate process" ;; relay-listen*) p="relay, LISTEN/NOTIFY" ;; cdc-latency*) p="Debezium, profile latency" ;; esac
		jq -r --arg p "$p" --arg load "$(cat "$OUT/$n.load")" '
			def f: if . == null then "–" else (. * 10 | round / 10 | tostring) end;
			def inbox: if .setup.inbox then (if (.setup.batch // 1) > 1 then "PostgreSQL, batch \(.setup.batch)" else "PostgreSQL" end) else "no" end;
			(if .search then "max: \(.search.max_sustained)" else (.rate_target | tostring) end) as $rate |
			"| \($p) | \($rate) | \(inbox) | \($load) | \(.load1 | f) | \(.cpu_percent | round) | \(.max_send_delay_ms | f) | \(.sdk_overhead_p50_ms | f) | \(.sent) | \(.handled) | \(.lost) | \(.duplicates) | \(.reordered) | \(.rate_achieved | f) | \(.latency_ms.p50 | f) | \(.latency_ms.p90 | f) | \(.latency_ms.p99 | f) | \(.latency_ms.p999 | f) | \(.latency_ms.max | f) |"' "$f"
	done
} | tee "$OUT/table.md"

# The goals of issue #29, each from this run's rows. v FILE JQ: a figure of
# a row ("" when the row was not run).
v() { [[ -f $OUT/$1.json ]] && jq -r "($2) // empty" "$OUT/$1.json" || true; }
# ratio A B: A / B to 2 decimals ("" when one is missing or B is 0).
ratio() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN { if (b != 0) printf "%.2f", a / b }' || true; }
# verdict VALUE OP GOAL: met / not met ("not run" for no value).
verdict() {
	[[ -z $1 ]] && { echo "not run"; return; }
	awk -v x="$1" -v op="$2" -v g="$3" 'BEGIN { ok = (op == "<=") ? (x <= g) : (x >= g); print (ok ? "met" : "not met") }'
}
r1() { if [[ -n $1 ]]; then awk -v a="$1" 'BEGIN { printf "%.1f", a }'; else echo "–"; fi; }
P99='.latency_ms.p99'
MAXS='.search.max_sustained'
{
	echo
	echo "Goals of issue #29 (each ratio from this run; load before the first row $(cat "$OUT/${ORDER[0]}-100.load"), after the consumer-alone row $(cut -d' ' -f1 /proc/loadavg)):"
	echo
	echo "| goal | figures | ratio | goal | status |"
	echo "|---|---|---|---|---|"
	for p in "${ORDER[@]}"; do
		a=$(v "$p-1000-inbox" "$P99") b=$(v "$p-1000" "$P99")
		q=$(ratio "$a" "$b")
		echo "| PG inbox p99 / no-inbox p99 at 1,000/s, $p | $(r1 "$a") / $(r1 "$b") ms | ${q:-–}× | ≤ 2× | $(verdict "$q" "<=" 2) |"
		echo "| PG inbox p99 at 1,000/s, $p (absolute) | $(r1 "$a") ms | – | ≤ 50 ms | $(verdict "$a" "<=" 50) |"
		a=$(v "$p-1000-inbox-batch" "$P99")
		q=$(ratio "$a" "$b")
		echo "| PG inbox batched (--batch 100) p99 / no-inbox p99 at 1,000/s, $p (not the issue's row: what batching gives) | $(r1 "$a") / $(r1 "$b") ms | ${q:-–}× | ≤ 2× | $(verdict "$q" "<=" 2) |"
	done
	a=$(v cdc-latency-max-inbox "$MAXS") b=$(v cdc-latency-max "$MAXS")
	q=$(ratio "$a" "$b")
	echo "| max sustained, batched inbox (--batch 100) / without, Debezium | ${a:-–} / ${b:-–} events/s | ${q:-–}× | ≥ 0.9× | $(verdict "$q" ">=" 0.9) |"
	for p in relay-listen relay-listen-proc; do
		a=$(v "$p-1000" "$P99") b=$(v cdc-latency-1000 "$P99")
		q=$(ratio "$a" "$b")
		echo "| LISTEN relay p99 / Debezium p99 at 1,000/s, no inbox, $p | $(r1 "$a") / $(r1 "$b") ms | ${q:-–}× | ≤ 1× | $(verdict "$q" "<=" 1) |"
	done
	for p in relay-100ms relay-listen relay-listen-proc; do
		a=$(v "$p-max" "$MAXS") b=$(v cdc-latency-max "$MAXS")
		q=$(ratio "$a" "$b")
		echo "| relay max sustained / Debezium's, $p | ${a:-–} / ${b:-–} events/s | ${q:-–}× | ≥ 1× | $(verdict "$q" ">=" 1) |"
	done
	for p in "${ORDER[@]}"; do
		a=$(v "$p-1000" '.sdk_overhead_p50_ms')
		echo "| SDK overhead (p50 SDK − p50 bare consumer) at 1,000/s, no inbox, $p | $(r1 "$a") ms | – | ≤ 1 ms | $(verdict "$a" "<=" 1) |"
	done
	a=$(cat "$OUT/consumer-alone.txt" 2>/dev/null || true)
	echo "| consumer alone, 1 partition, prefilled, HandleBatch inbox with an effect row (BenchmarkConsumerThroughput, load before $(cat "$OUT/consumer-alone.load")) | ${a:-–} records/s | – | ≥ 15,000/s | $(verdict "$a" ">=" 15000) |"
	bad=0 rows=0
	for f in "$OUT"/*.json; do
		rows=$((rows + 1))
		[[ $(jq '(.lost // 0) + (.duplicates // 0) + (.reordered // 0)' "$f") == 0 ]] || bad=$((bad + 1))
	done
	echo "| 0 lost, 0 duplicates, 0 reordered in every row | $bad of $rows rows with any | – | 0 | $( ((bad == 0)) && echo met || echo "not met") |"
} | tee "$OUT/goals.md"
