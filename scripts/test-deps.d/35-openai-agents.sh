#!/usr/bin/env bash
# openai-agents 0.24.0 (PyPI), an agent host, for tests/mcp/openai_agents.rs: what its default
# MCP settings hand the model from a tapflow result, called through the host's own MCP code
# (no model is needed). Pinned in its own venv under .test-deps/. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/venv.sh
install_venv .test-deps/openai-agents-0.24 "openai-agents==0.24.0"
