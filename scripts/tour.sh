#!/usr/bin/env bash
# Refreshes the README's tour from the end-to-end tests' screenshots: each
# image the README shows as docs/tour/<shot>.jpg is web/e2e/artifacts/<shot>.png
# (taken by `make e2e`), scaled to 960 pixels wide. Run `make e2e` first.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p docs/tour
for shot in $(grep -o 'docs/tour/[a-z0-9-]*\.jpg' README.md | sort -u | sed 's#docs/tour/##; s#\.jpg$##'); do
  src="web/e2e/artifacts/$shot.png"
  [[ -f $src ]] || { echo "tour: $src is missing; run make e2e first" >&2; exit 1; }
  ffmpeg -loglevel error -y -i "$src" -vf "scale=960:-1" -q:v 4 "docs/tour/$shot.jpg"
done
