#!/usr/bin/env bash
# Runs go test with the given arguments, prints every test's result, and ends
# with one summary line "N passed, N failed, N skipped". Skipped tests are
# listed by name with their reason, so an integration test that did not run
# can be seen in the CI log.
set -euo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
go test -count=1 -timeout 45m -v "$@" >"$log" 2>&1 || rc=$?
# Package results and failures in full; passing tests one line each.
grep -E '^(ok|FAIL|---|panic:|\?)|^\s+--- (FAIL|SKIP)|_test\.go:[0-9]+:' "$log" | grep -vE '^\s*--- PASS: .*/' || true
passed=$(grep -cE '^\s*--- PASS' "$log" || true)
failed=$(grep -cE '^\s*--- FAIL' "$log" || true)
skipped=$(grep -cE '^\s*--- SKIP' "$log" || true)
if ((rc != 0)) && ((failed == 0)); then
	# A build failure or a panic: show the whole log's tail.
	tail -n 80 "$log"
fi
if ((skipped > 0)); then
	echo "skipped tests:"
	grep -E -B1 '^\s*--- SKIP' "$log" | grep -vxE -e '--' | grep -v '^=== ' | sed 's/^/  /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
