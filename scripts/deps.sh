#!/usr/bin/env bash
# Installs the system packages the service and its tests need, with apt-get,
# when they are missing. Idempotent and quiet when everything is there.
#   scripts/deps.sh           PostgreSQL (server binaries and psql)
#   scripts/deps.sh browser   also Chromium and espeak-ng (a call's audio), for the dashboard's end-to-end tests
set -euo pipefail
need=()
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || need+=(postgresql)
command -v psql >/dev/null 2>&1 || need+=(postgresql-client)
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
command -v pocketsphinx_continuous >/dev/null 2>&1 || need+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us ] || need+=(pocketsphinx-en-us)
[ -d /usr/share/pocketsphinx/test/data/librivox ] || need+=(pocketsphinx-testdata)
if [ "${1:-}" = browser ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
  command -v espeak-ng >/dev/null 2>&1 || need+=(espeak-ng)
fi
[ ${#need[@]} -eq 0 ] && exit 0
echo "deps.sh: installing ${need[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
