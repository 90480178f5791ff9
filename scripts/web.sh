#!/usr/bin/env bash
# `make web`: installs the dashboard's npm packages (npm ci, only when
# package-lock.json changed since the last install), generates its API
# types from the OpenAPI document (`auditd openapi` → web/openapi.json, which
# `npm run lint` checks with Redocly's recommended rules; openapi-typescript
# → web/src/openapi.d.ts) and builds it into web/dist (only when a source
# changed since the last build), which the next `go build` embeds in the
# binary.
#   scripts/web.sh           install, generate and build
#   scripts/web.sh install   install and generate (what lint and tests need)
set -euo pipefail
cd "$(dirname "$0")/../web"
if ! command -v node >/dev/null 2>&1; then
  echo "web.sh: Node.js 20.19 or newer is needed to build the dashboard (web/)" >&2
  exit 1
fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "web.sh: Node.js $(node --version) is too old to build the dashboard: Vite needs 20.19 or newer" >&2
  exit 1
fi
stamp=node_modules/.package-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
fi
(cd .. && go run ./cmd/auditd openapi) >openapi.json
npx --no-install openapi-typescript openapi.json -o src/openapi.d.ts --silent
[ "${1:-}" = install ] && exit 0
# The build is skipped when nothing it is made from changed since the last.
built=dist/.sources.sha256
sources=$(find src public index.html package-lock.json vite.config.ts tsconfig.json openapi.json -type f 2>/dev/null |
  LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
[ "$(cat "$built" 2>/dev/null || true)" = "$sources" ] && exit 0
npm run --silent build
echo "$sources" >"$built"
