#!/usr/bin/env bash
# `make test`: every Go test against a real Postgres. Uses TEST_DATABASE_URL
# when set, else a private throwaway cluster (fsync off) removed afterwards.
# Each test gets its own database cloned from a migrated template.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  tmp=$(mktemp -d /tmp/auditd-test.XXXXXX)
  chmod 755 "$tmp"
  trap 'scripts/pg.sh stop "$tmp/pg"; rm -rf "$tmp"' EXIT
  port=$(scripts/free-port.sh)
  TEST_DATABASE_URL=$(scripts/pg.sh start "$tmp/pg" "$port" test)
  export TEST_DATABASE_URL
fi
go test -count=1 ${GOTESTFLAGS:-} ./...
