#!/usr/bin/env bash
# Refreshes the API documentation assets embedded in the binary (api/docs/)
# from their npm packages, so /docs and /redoc work with no internet access.
# Bump the versions here, run it, and commit the result.
set -euo pipefail
REDOC_VERSION=3.0.1
SWAGGER_UI_VERSION=5.35.0

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "redoc@$REDOC_VERSION" "swagger-ui-dist@$SWAGGER_UI_VERSION" >/dev/null)
mkdir -p "$tmp/redoc" "$tmp/swagger"
tar xzf "$tmp/redoc-$REDOC_VERSION.tgz" -C "$tmp/redoc" --strip-components=1
tar xzf "$tmp/swagger-ui-dist-$SWAGGER_UI_VERSION.tgz" -C "$tmp/swagger" --strip-components=1
cp "$tmp/redoc/bundles/redoc.standalone.js" api/docs/
cp "$tmp/redoc/LICENSE" api/docs/redoc.LICENSE
cp "$tmp/swagger/swagger-ui-bundle.js" "$tmp/swagger/swagger-ui.css" api/docs/
cp "$tmp/swagger/LICENSE" api/docs/swagger-ui.LICENSE
echo "api/docs: redoc $REDOC_VERSION, swagger-ui-dist $SWAGGER_UI_VERSION"
