#!/usr/bin/env bash
# The official Python MCP SDK, twice, for tests/mcp/python.rs (tests/mcp/*.py): PyPI `mcp` 1.26.0
# (handshake era only) and 2.3.0 (both eras), each pinned in its own venv under .test-deps/, plus
# `jsonschema` to validate every structuredContent against its tool's outputSchema. Idempotent:
# a venv whose pinned versions are already installed is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/venv.sh
mkdir -p .test-deps
install_venv .test-deps/mcp-py-1.26 "mcp==1.26.0" "jsonschema==4.25.1"
install_venv .test-deps/mcp-py-2.3 "mcp==2.3.0" "jsonschema==4.25.1"
