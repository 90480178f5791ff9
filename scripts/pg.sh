#!/usr/bin/env bash
# Private PostgreSQL clusters for development and tests, from the system's
# PostgreSQL server binaries (installed with apt-get when absent).
#
#   scripts/pg.sh start DIR PORT [test]   start (or reuse) the cluster in DIR on
#                                         127.0.0.1:PORT; prints its URL. A test
#                                         cluster (fsync off) listens only on a
#                                         Unix socket in DIR: no TCP port to
#                                         race for, PORT only names the socket
#   scripts/pg.sh stop DIR                stop it
#
# initdb refuses to run as root: as root the cluster is owned by the postgres
# user and every server command runs through runuser.
set -euo pipefail

die() { echo "pg.sh: $*" >&2; exit 1; }

pg_bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$dir" ]; then
    echo "pg.sh: PostgreSQL server binaries not found; installing them with apt-get" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2 || die "could not install postgresql"
    dir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  echo "$dir"
}

# as_owner runs a server command as the cluster's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start() {
  local dir=$1 port=$2 mode=${3:-dev}
  local bin
  bin=$(pg_bindir)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    chown postgres: "$dir"
    runuser -u postgres -- test -w "$dir" ||
      die "the postgres user cannot write $dir (a parent directory is private); set DATABASE_URL or move the checkout"
  fi
  if [ ! -f "$dir/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$dir" -A trust -U postgres -E UTF8 --locale=C >"$dir.initdb.log" 2>&1 ||
      { cat "$dir.initdb.log" >&2; die "initdb failed"; }
    rm -f "$dir.initdb.log"
  fi
  local opts="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200"
  local url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  if [ "$mode" = test ]; then
    opts="-p $port -k $dir -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400"
    url="postgres://postgres@/postgres?host=$dir&port=$port&sslmode=disable"
  fi
  if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$dir" -w -t 60 -o "$opts" -l "$dir/server.log" start >/dev/null ||
      { tail -n 20 "$dir/server.log" >&2; die "postgres did not start (port $port in use?)"; }
  fi
  echo "$url"
}

stop() {
  local dir=$1 bin
  bin=$(pg_bindir)
  [ -f "$dir/PG_VERSION" ] || return 0
  as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}

case "${1:-}" in
  start) [ $# -ge 3 ] || die "usage: pg.sh start DIR PORT [test]"; start "$2" "$3" "${4:-dev}" ;;
  stop) [ $# -eq 2 ] || die "usage: pg.sh stop DIR"; stop "$2" ;;
  *) die "usage: pg.sh start DIR PORT [test] | stop DIR" ;;
esac
