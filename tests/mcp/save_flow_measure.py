"""Measures save_flow on a long session (docs/benchmarks.md): `tapflow mcp --sim 1 --sim-latency
none` over stdio with the Python MCP SDK 2.3; N rounds of find_elements + click by handle +
wait_for_element on the demo's settings toggle, the server's resident memory before and after,
then save_flow's own duration (meta.duration_ms) and the flow's size. Not a test: run by hand.

usage: .test-deps/mcp-py-2.3/bin/python tests/mcp/save_flow_measure.py TAPFLOW_BIN [ROUNDS]
(in an empty directory: it writes flows/measured.yaml there)
"""

import json
import os
import subprocess
import sys
import time

import anyio
from mcp import Client, StdioServerParameters

DEMO = "com.tapflow.demo"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def server_pid():
    out = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True).stdout
    return int(out.split()[0])


async def main(bin_, rounds):
    os.makedirs("flows", exist_ok=True)
    params = StdioServerParameters(
        command=bin_,
        args=["mcp", "--sim", "1", "--sim-latency", "none", "--output-root", "flows", "--tools", "all"],
        cwd=os.getcwd(),
    )
    async with Client(params) as c:

        async def call(name, args):
            r = await c.call_tool(name, args)
            sc = r.structured_content
            if not sc["ok"]:
                sys.exit(f"{name} {args}: {sc['error']}")
            return sc

        pid = server_pid()
        await call("run_app", {"bundle_name": DEMO})
        await call("input_text", {"element_id": "username", "text": "bob"})
        await call("click", {"element_id": "login"})
        await call("wait_for_element", {"element_id": "open_settings", "timeout_ms": 10000})
        await call("click", {"element_id": "open_settings"})
        before = rss_kib(pid)
        started = time.monotonic()
        for _ in range(rounds):
            found = await call("find_elements", {"element_id": "dark_mode"})
            await call("click", {"element_handle": found["result"]["elements"][0]["element_handle"]})
            await call("wait_for_element", {"element_id": "dark_mode", "timeout_ms": 5000})
        session_s = time.monotonic() - started
        after = rss_kib(pid)
        saved = await call("save_flow", {"path": "flows/measured.yaml", "overwrite": True})
        print(
            json.dumps(
                {
                    "calls": 5 + 3 * rounds,
                    "session_s": round(session_s, 2),
                    "rss_before_kib": before,
                    "rss_after_kib": after,
                    "save_flow_ms": saved["meta"]["duration_ms"],
                    "steps": saved["result"]["steps"],
                    "yaml_bytes": len(saved["result"]["yaml"].encode()),
                }
            )
        )


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
