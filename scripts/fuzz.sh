#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME (default 10s) each, one at a time (go
# test -fuzz takes one target per run). The committed corpora under
# */testdata/fuzz/ also run as plain tests in every `go test`. A failing
# input is written to the target's testdata/fuzz/ directory: commit it
# with the fix. The API targets need TEST_DATABASE_URL (see with-test-db.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${TEST_DATABASE_URL:-}" ] || exec scripts/with-test-db.sh scripts/fuzz.sh "$@"
fuzztime=${FUZZTIME:-10s}

failed=()
for pkg in ./transcript ./auditor/rules ./api; do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
    echo "fuzz.sh: $pkg $target for $fuzztime"
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/fuzz-$$.log 2>&1; then
      # Go's fuzzer can report "context deadline exceeded" when the time
      # runs out during an execution; a real finding always writes its input.
      if ! grep -q 'Failing input written to' /tmp/fuzz-$$.log && grep -q 'context deadline exceeded' /tmp/fuzz-$$.log; then
        echo "fuzz.sh: $target ran out of time mid-execution (not a finding)"
        continue
      fi
      grep -v 'level=' /tmp/fuzz-$$.log | tail -40 >&2
      failed+=("$target")
    fi
  done
done
rm -f /tmp/fuzz-$$.log
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: failed: ${failed[*]}" >&2
  exit 1
fi
