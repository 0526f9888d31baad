"""A real client of `tapflow mcp --http` while the server holds thousands of idle connections
(tests/mcp/idle_load.rs opens them): the official Python SDK (mcp 2.3) connects, once as a
handshake-era client (a session) and once as a 2026-07-28 client (stateless), and calls
`list_devices`. Fails if either does not complete within DEADLINE seconds. Prints one JSON line:
per mode, the milliseconds to connect and to complete the call (client-observed).

usage: idle_load_check.py URL [DEADLINE]
"""

import json
import sys
import time

import anyio
from mcp import Client

URL = sys.argv[1]
DEADLINE = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0


async def one(mode):
    t0 = time.perf_counter()
    async with Client(URL, mode=mode) as c:
        t1 = time.perf_counter()
        r = await c.call_tool("list_devices", {})
        t2 = time.perf_counter()
    sc = r.structured_content
    if r.is_error or not sc["ok"] or not sc["result"]["devices"]:
        print(f"idle_load_check: {mode}: list_devices failed: {sc}", file=sys.stderr)
        sys.exit(1)
    return {"connect_ms": round((t1 - t0) * 1000, 1), "call_ms": round((t2 - t1) * 1000, 1)}


async def main():
    facts = {}
    for mode in ("legacy", "auto"):
        try:
            with anyio.fail_after(DEADLINE):
                facts[mode] = await one(mode)
        except TimeoutError:
            print(f"idle_load_check: {mode}: no result within {DEADLINE} s", file=sys.stderr)
            sys.exit(1)
    print(json.dumps(facts))


anyio.run(main)
