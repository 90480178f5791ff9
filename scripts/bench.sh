#!/usr/bin/env bash
# `make bench`: every benchmark against a private Postgres, then one report
# (markdown on stdout, JSON in bench-report.json). BENCH selects benchmarks
# by regexp (default: all); BENCHTIME sets -benchtime (default 3x).
# Packages run one at a time (-p 1): a benchmark measures the machine
# alone, not against another package's benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/benchreport ./cmd/benchreport
scripts/with-test-db.sh go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-3x}" -count=1 -p 1 -timeout 90m ./... 2>&1 |
  bin/benchreport -json bench-report.json
