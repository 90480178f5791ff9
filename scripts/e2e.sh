#!/usr/bin/env bash
# The dashboard's end-to-end tests (web/e2e/*.spec.ts, Playwright Test):
# headless Chromium against a real `auditd all` (built here, with the
# dashboard built by scripts/web.sh embedded) on a fresh database of
# TEST_DATABASE_URL's cluster, dropped afterwards. Screenshots go to
# web/e2e/artifacts/, a failed test's screenshot to web/e2e/artifacts/results/
# and, run once more, its trace (a test that passes the second time fails too).
#   scripts/e2e.sh                  every test
#   scripts/e2e.sh 'part a|part b'  the tests whose names contain either part
# (as text, whatever its characters; Playwright matches them ignoring case,
# and also against the spec's file name). It fails when a test fails, and
# when no test ran.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TEST_DATABASE_URL:?e2e.sh needs TEST_DATABASE_URL (run it through scripts/with-test-db.sh)}"
tmp=$(mktemp -d /tmp/auditd-e2e.XXXXXX)
db="e2e_$(date +%s)_$$"
base=${TEST_DATABASE_URL%%\?*}
query=${TEST_DATABASE_URL#"$base"}
cleanup() {
  psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $db" >/dev/null
go build -o "$tmp/auditd" ./cmd/auditd
grep=()
[ $# -gt 0 ] && grep=(--grep "$(printf '%s' "$1" | sed 's/[][\\.^$*+?(){}]/\\&/g')")
# From here, as every auditd is started: its files go to ./data (ignored).
AUDITD_BIN="$tmp/auditd" DATABASE_URL="${base%/*}/$db$query" web/node_modules/.bin/playwright test -c web/playwright.config.ts ${grep[@]+"${grep[@]}"}
