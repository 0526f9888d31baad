#!/usr/bin/env bash
# The MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, pinned) for tests/mcp/inspector.rs,
# installed with npm into .test-deps/mcp-inspector. Node and npm come from Debian's packages when
# missing. Idempotent: an install of the pinned version is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=2.12.0
dir=.test-deps/mcp-inspector
if ! command -v npm >/dev/null 2>&1; then
  echo "installing nodejs and npm from Debian's packages"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq nodejs npm
fi
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$VERSION" ]; then
  exit 0
fi
echo "installing @modelcontextprotocol/inspector@$VERSION into $dir"
rm -rf "$dir"
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$VERSION"
echo "$VERSION" > "$dir/.installed"
