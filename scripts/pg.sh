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
#   scripts/pg.sh where DIR               print the directory the cluster
#                                         asked for in DIR lives in
#
# initdb refuses to run as root: as root the cluster is owned by the postgres
# user and every server command runs through runuser. When that user cannot
# reach DIR (a parent directory is private, as root's home is), the cluster
# lives in /var/lib/auditd/<hash of DIR's absolute path>/ instead, where the
# same DIR finds it again; the caller's own directories keep their
# permissions.
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

# as_owner runs a server command as the cluster's owner, from / (the
# caller's directory may be one that user cannot enter).
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

# relocated DIR: where the cluster asked for in DIR lives when the postgres
# user cannot reach DIR (see the top of this file).
relocated() {
  local abs
  abs=$(realpath -m "$1")
  echo "/var/lib/auditd/$(printf %s "$abs" | sha256sum | cut -c1-16)/$(basename "$abs")"
}

# where DIR: the directory the cluster asked for in DIR lives in. As root,
# that is DIR when the postgres user can reach its parent, else relocated.
where() {
  local dir parent
  dir=$(realpath -m "$1")
  parent=$(dirname "$dir")
  if [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$parent"; then
    relocated "$dir"
  else
    echo "$dir"
  fi
}

# prepare DIR: makes the cluster's directory and, as root, the postgres
# user's; prints where it is.
prepare() {
  local asked=$1 dir
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
  mkdir -p "$(dirname "$(realpath -m "$asked")")"
  dir=$(where "$asked")
  if [ "$dir" != "$(realpath -m "$asked")" ]; then
    echo "pg.sh: the postgres user cannot reach $(realpath -m "$asked") (a parent directory is private): the cluster lives in $dir" >&2
    mkdir -p "$(dirname "$dir")"
    chmod 755 /var/lib/auditd "$(dirname "$dir")"
  fi
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
    runuser -u postgres -- test -w "$dir" || die "the postgres user cannot write $dir; set DATABASE_URL"
  fi
  echo "$dir"
}

start() {
  local port=$2 mode=${3:-dev}
  local bin dir
  bin=$(pg_bindir)
  dir=$(prepare "$1")
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
  local dir bin
  dir=$(where "$1")
  bin=$(pg_bindir)
  [ -f "$dir/PG_VERSION" ] || return 0
  as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}

case "${1:-}" in
  start) [ $# -ge 3 ] || die "usage: pg.sh start DIR PORT [test]"; start "$2" "$3" "${4:-dev}" ;;
  stop) [ $# -eq 2 ] || die "usage: pg.sh stop DIR"; stop "$2" ;;
  where) [ $# -eq 2 ] || die "usage: pg.sh where DIR"; where "$2" ;;
  *) die "usage: pg.sh start DIR PORT [test] | stop DIR | where DIR" ;;
esac
