"""What openai-agents (0.24, default MCP settings) hands the model from tapflow's results.

Run by tests/mcp/openai_agents.rs: `python openai_agents_check.py TAPFLOW_BIN`. Starts
`tapflow mcp --sim 1` through the host's own `MCPServerStdio` (default settings:
`use_structured_content=False`, so the model gets the result's `content`), lists the tools as
the host converts them, and calls them through the host's own `MCPUtil.invoke_mcp_tool`, the
code an agent run uses; no model is involved. Prints one JSON line of facts: the text each
call gave the model.
"""

import asyncio
import json
import sys

from agents.mcp import MCPServerStdio
from agents.mcp.util import MCPUtil
from agents.run_context import RunContextWrapper

FAILING = (
    "name: fails\napp: com.tapflow.demo\nclean_state: true\n"
    "steps:\n  - click: No such button\n    wait: 0\n"
)


def text_of(output):
    """The text the model sees: a single text item, or the texts of a list of items."""
    items = output if isinstance(output, list) else [output]
    if isinstance(output, str):
        return output
    return "\n".join(i["text"] for i in items if i.get("type") == "text")


async def main(binary):
    server = MCPServerStdio(
        params={"command": binary, "args": ["mcp", "--sim", "1", "--sim-latency", "none"]},
        client_session_timeout_seconds=120,
    )
    facts = {}
    async with server:
        tools = {t.name: t for t in await server.list_tools()}
        ctx = RunContextWrapper(context=None)

        async def call(name, args):
            out = await MCPUtil.invoke_mcp_tool(server, tools[name], ctx, json.dumps(args))
            return text_of(out)

        await call("run_app", {"bundle_name": "com.tapflow.demo"})
        facts["find_elements"] = await call("find_elements", {"element_id": "username"})
        facts["run_flow_failed"] = await call("run_flow", {"yaml": FAILING})
        facts["tools"] = len(tools)
    print(json.dumps(facts))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
