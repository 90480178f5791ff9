#!/usr/bin/env bash
# `make run`: one process serving the API, the dashboard and working jobs,
# with a private Postgres under ./data/pg unless DATABASE_URL is set, and the
# development identity provider.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/web.sh
go build -o bin/auditd ./cmd/auditd

if [ -z "${DATABASE_URL:-}" ]; then
  port=${DEV_PG_PORT:-54329}
  admin=$(scripts/pg.sh start data/pg "$port")
  if [ "$(psql "$admin" -tAc "SELECT 1 FROM pg_database WHERE datname = 'auditd'")" != 1 ]; then
    psql "$admin" -qc "CREATE DATABASE auditd" >/dev/null
  fi
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/auditd?sslmode=disable"
fi
export AUTH_DEV=${AUTH_DEV:-true}
export LISTEN_ADDR=${LISTEN_ADDR:-127.0.0.1:8080}

bin/auditd migrate >/dev/null
base="http://$LISTEN_ADDR"
cat <<MSG

  auditd is starting on  $base
  Dashboard:             $base/
  API docs:              $base/docs   (Redoc: $base/redoc)
  Database:              $DATABASE_URL
MSG
if [ "$AUTH_DEV" = true ]; then
  token=$(bin/auditd token --user dev --roles admin)
  cat <<MSG
  Dev token (admin, 12h; more, from another shell, with:
    DATABASE_URL='$DATABASE_URL' AUTH_DEV=true bin/auditd token --user NAME --roles quality):

    export TOKEN=$token
    curl -H "Authorization: Bearer \$TOKEN" $base/users/me

MSG
fi
exec bin/auditd all
