#!/usr/bin/env bash
# Runs a command with TEST_DATABASE_URL set: the caller's when set, else a
# private throwaway cluster (fsync off, on a Unix socket), removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  tmp=$(mktemp -d /tmp/auditd-test.XXXXXX)
  chmod 755 "$tmp"
  trap 'scripts/pg.sh stop "$tmp/pg"; rm -rf "$tmp"' EXIT
  TEST_DATABASE_URL=$(scripts/pg.sh start "$tmp/pg" 5432 test)
  export TEST_DATABASE_URL
fi
"$@"
