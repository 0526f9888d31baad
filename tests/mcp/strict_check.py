"""Converts every tool's inputSchema as the OpenAI Agents SDK does for strict function calling
(`agents.strict_schema.ensure_strict_json_schema`, the converter its MCP integration runs with
`convert_schemas_to_strict`). Reads the tools/list `tools` array on stdin; prints one JSON line:
how many were checked and, by tool name, why a conversion failed."""
import json, sys
from agents.strict_schema import ensure_strict_json_schema
tools = json.load(sys.stdin)
failed = {}
for t in tools:
    try:
        ensure_strict_json_schema(json.loads(json.dumps(t["inputSchema"])))
    except Exception as e:
        failed[t["name"]] = str(e)[:200]
print(json.dumps({"checked": len(tools), "failed": failed}))
