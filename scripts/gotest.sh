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
grep -aE '^(ok|FAIL|---|panic:|\?)|^\s+--- (FAIL|SKIP)|_test\.go:[0-9]+:' "$log" | grep -avE '^\s*--- PASS: .*/' || true
passed=$(grep -acE '^\s*--- PASS' "$log" || true)
failed=$(grep -acE '^\s*--- FAIL' "$log" || true)
skipped=$(grep -acE '^\s*--- SKIP' "$log" || true)
if ((rc != 0)) && ((failed == 0)); then
	# A build failure or a panic: show the whole log's tail.
	tail -n 80 "$log"
fi
if ((skipped > 0)); then
	echo "skipped tests:"
	grep -aE -B1 '^\s*--- SKIP' "$log" | grep -avxE -e '--' | grep -av '^=== ' | sed 's/^/  /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
exit $rc
