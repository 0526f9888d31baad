#!/usr/bin/env bash
# The official TypeScript MCP SDK 1.x (npm `@modelcontextprotocol/sdk`, pinned), which many hosts
# still embed, for scripts/bench/mcp-clients (its listTools time and warnings; docs/benchmarks.md).
# Installed with npm into .test-deps/mcp-ts-sdk-1. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=1.32.2
dir=.test-deps/mcp-ts-sdk-1
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$VERSION" ]; then
  exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "npm is missing: run scripts/test-deps.d/40-mcp-inspector.sh first"; exit 1; }
echo "installing @modelcontextprotocol/sdk@$VERSION into $dir"
rm -rf "$dir"
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/sdk@$VERSION"
echo "$VERSION" > "$dir/.installed"
