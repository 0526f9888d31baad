"""Per-call cost of the official Python MCP SDK against `tapflow mcp --http` (issue 19: mcp 1.26
re-validates every structuredContent against its tool's outputSchema, compiling the schema each
time). SESSIONS concurrent sessions x CALLS calls each over the simulated devices, in one client
process. Prints one JSON line: client-observed latency p50/p99 (ms) and the client's CPU time per
call (ms; all sessions share the process, so this is what one call costs the client).

Works with mcp 1.x (ClientSession over streamablehttp_client) and 2.x (`Client`).
usage: mcp_py_calls.py URL [SESSIONS] [CALLS]
"""

import json
import sys
import time

from contextlib import asynccontextmanager

import anyio

try:  # mcp 1.x
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    @asynccontextmanager
    async def connect(url):
        async with streamablehttp_client(url) as (r, w, _):
            async with ClientSession(r, w) as s:
                await s.initialize()
                await s.list_tools()  # 1.x validates results against the listed outputSchemas
                yield s

    def structured(res):
        return res.structuredContent, res.isError

except ImportError:  # mcp 2.x
    from mcp import Client

    @asynccontextmanager
    async def connect(url):
        async with Client(url, mode="auto") as c:
            await c.list_tools()
            yield c

    def structured(res):
        return res.structured_content, res.is_error

URL = sys.argv[1]
SESSIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 8
CALLS = int(sys.argv[3]) if len(sys.argv) > 3 else 100
# What an agent calls most while driving an app (the same mix as tests/mcp/load_check.py).
TOOLS = [
    ("find_elements", {"element_type": "GridItem", "response_level": "digest"}),
    ("get_ui_tree", {"response_level": "digest"}),
    ("find_elements", {"element_type": "GridItem"}),
    ("wait_for_element", {"element_type": "GridItem", "timeout_ms": 2000}),
]


async def main():
    latencies = []
    errors = []
    async with connect(URL) as s:
        sc, _ = structured(await s.call_tool("list_devices", {}))
        devices = [d["device_id"] for d in sc["result"]["devices"]]

    async def session(n):
        device = devices[n % len(devices)]
        async with connect(URL) as s:
            for i in range(CALLS):
                tool, args = TOOLS[i % len(TOOLS)]
                t0 = time.perf_counter()
                res = await s.call_tool(tool, dict(args, device_id=device))
                latencies.append((time.perf_counter() - t0) * 1000)
                if structured(res)[1]:
                    errors.append((n, i, tool))

    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for n in range(SESSIONS):
            tg.start_soon(session, n)
    cpu = (time.process_time() - cpu0) * 1000
    wall = (time.perf_counter() - wall0) * 1000
    latencies.sort()
    pick = lambda q: round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 1)
    print(
        json.dumps(
            {
                "calls": len(latencies),
                "errors": len(errors),
                "p50_ms": pick(0.5),
                "p99_ms": pick(0.99),
                "client_cpu_ms_per_call": round(cpu / max(1, len(latencies)), 2),
                "wall_s": round(wall / 1000, 2),
            }
        )
    )


anyio.run(main)
