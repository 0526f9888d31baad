#!/usr/bin/env bash
# openai-agents 0.24.0 (PyPI), an agent host, for tests/mcp/openai_agents.rs: what its default
# MCP settings hand the model from a tapflow result, called through the host's own MCP code
# (no model is needed). Pinned in its own venv under .test-deps/. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.test-deps/openai-agents-0.24
want="openai-agents==0.24.0"
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$want" ] && [ -x "$dir/bin/python" ]; then
  exit 0
fi
echo "creating $dir with: $want"
rm -rf "$dir"
mkdir -p .test-deps
python3 -m venv "$dir"
"$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$want"
echo "$want" > "$dir/.installed"
