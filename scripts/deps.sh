#!/usr/bin/env bash
# Installs the system packages the service and its tests need, with apt-get,
# when they are missing. Idempotent and quiet when everything is there.
set -euo pipefail
need=()
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need+=(postgresql)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
[ ${#need[@]} -eq 0 ] && exit 0
echo "deps.sh: installing ${need[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
