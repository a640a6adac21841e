#!/usr/bin/env bash
# scripts/action.sh: the run step of the outboxctl GitHub Action (action.yml).
# It is plain bash so it can be tested outside GitHub Actions
# (cmd/testdata/script/action_sh.txtar). Inputs arrive as environment variables:
#
#   INPUT_COMMAND       schema-check | validate | plan        (required)
#   INPUT_SPEC          outbox spec file or folder (-f), optional
#   INPUT_SCHEMAS_DIR   schema check: --against-dir DIR (a checkout of the base), optional
#   INPUT_AGAINST       schema check: --against-git REF; default origin/$GITHUB_BASE_REF
#                       on pull requests, else HEAD~1
#   INPUT_ARGS          extra arguments, split on whitespace
#   OUTBOXCTL           the binary to run (default: outboxctl on PATH)
#   GITHUB_STEP_SUMMARY the Markdown summary file (--summary-file), if set
#   GITHUB_OUTPUT       receives exit-code=N, if set
#
# The command runs with -o github-actions, so findings become annotations.
# The script exits with outboxctl's exit status (see `outboxctl help exit-codes`).
set -u

bin=${OUTBOXCTL:-outboxctl}
cmd=${INPUT_COMMAND:-}
args=()

case "$cmd" in
schema-check)
	args=(schema check)
	if [ -n "${INPUT_SCHEMAS_DIR:-}" ]; then
		args+=(--against-dir "$INPUT_SCHEMAS_DIR")
	else
		against=${INPUT_AGAINST:-}
		if [ -z "$against" ]; then
			if [ -n "${GITHUB_BASE_REF:-}" ]; then
				against="origin/$GITHUB_BASE_REF"
			else
				against="HEAD~1"
			fi
		fi
		args+=(--against-git "$against")
	fi
	;;
validate) args=(validate) ;;
plan) args=(plan) ;;
*)
	echo "action.sh: input command must be schema-check, validate or plan (got \"$cmd\")" >&2
	exit 2
	;;
esac

if [ -n "${INPUT_SPEC:-}" ]; then
	args+=(-f "$INPUT_SPEC")
fi
args+=(-o github-actions)
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	args+=(--summary-file "$GITHUB_STEP_SUMMARY")
fi
if [ -n "${INPUT_ARGS:-}" ]; then
	# Word splitting is intended: extra args are a whitespace-separated list.
	# shellcheck disable=SC2206
	extra=(${INPUT_ARGS})
	args+=("${extra[@]}")
fi

echo "+ outboxctl ${args[*]}" >&2
"$bin" "${args[@]}"
rc=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	echo "exit-code=$rc" >>"$GITHUB_OUTPUT"
fi
exit "$rc"
