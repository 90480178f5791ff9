#!/usr/bin/env bash
# `make test`: every Go test against a real Postgres (see with-test-db.sh).
# Each test gets its own database cloned from a migrated template.
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/with-test-db.sh go test -count=1 ${GOTESTFLAGS:-} ./...
