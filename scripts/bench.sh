#!/usr/bin/env bash
# `make bench`: every benchmark, once each (they size themselves), against
# a private Postgres. BENCH selects benchmarks by regexp (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/with-test-db.sh go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-3x}" -count=1 ./...
