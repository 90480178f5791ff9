#!/usr/bin/env bash
# `make test-faults` (and a step of `make test`): the fault-injection suite
# (faults/, build tag "faults") against real auditd processes and a real
# Postgres: workers killed, the database restarted, the mail server down,
# engines failing, SIGTERM under load. Prints each test's outcome and its
# REPORT line; the whole log is kept in $FAULTS_LOG (default
# /tmp/auditd-faults.log) and its end is printed when a test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${TEST_DATABASE_URL:-}" ] || exec scripts/with-test-db.sh scripts/faults.sh "$@"
log=${FAULTS_LOG:-/tmp/auditd-faults.log}
rc=0
go test -tags faults -count=1 -v -timeout 15m ./faults/ "$@" >"$log" 2>&1 || rc=$?
grep -E '^\s*--- |REPORT|^(ok|FAIL|panic)' "$log" | sed -E 's/^ +[a-z_]+_test\.go:[0-9]+: //' || true
if [ "$rc" -ne 0 ]; then
  echo "faults.sh: the fault-injection suite failed; the end of $log:" >&2
  grep -vE '"level":"(INFO|DEBUG)"' "$log" | tail -n 100 >&2
  echo "faults.sh: the tests' own lines (the processes' left out):" >&2
  grep -vE 'proctest\.go:[0-9]+: |^=== ' "$log" | tail -n 60 >&2
fi
exit "$rc"
