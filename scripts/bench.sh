#!/usr/bin/env bash
# `make bench`: every benchmark against a private Postgres, then one report
# (markdown on stdout, JSON in bench-report.json). BENCH selects benchmarks
# by regexp (default: all); BENCHTIME sets -benchtime (default 3x).
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/benchreport ./cmd/benchreport
scripts/with-test-db.sh go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-3x}" -count=1 -timeout 60m ./... 2>&1 |
  bin/benchreport -json bench-report.json
