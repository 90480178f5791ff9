#!/usr/bin/env bash
# `make test`: the dashboard's unit tests, every Go test, a short run of
# every fuzz target (fuzz.sh), the fault-injection suite (faults.sh), then the
# dashboard's end-to-end tests in
# headless Chromium, all against a real Postgres (see with-test-db.sh). Each Go test gets its own database cloned
# from a migrated template; the end-to-end run gets a fresh one. Fails when
# any step fails; every step runs regardless.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${TEST_DATABASE_URL:-}" ] || exec scripts/with-test-db.sh scripts/test.sh "$@"
scripts/deps.sh browser
scripts/web.sh # the end-to-end tests' binary embeds the build

failed=()
(cd web && npm test --silent) || failed+=("web unit tests")
go test -count=1 -timeout 30m ${GOTESTFLAGS:-} ./... || failed+=("go test")
scripts/fuzz.sh || failed+=("fuzzing")
scripts/faults.sh || failed+=("fault injection")
scripts/e2e.sh || failed+=("end-to-end tests")
if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: failed: ${failed[*]}" >&2
  exit 1
fi
