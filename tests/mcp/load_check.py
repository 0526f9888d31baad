"""A bounded loopback load test of `tapflow mcp --http` with the official Python SDK (mcp 2.3):
CLIENTS concurrent sessions x CALLS calls each, spread over the server's simulated devices
(two clients per device, so calls on one device contend). Checks: no error at all; per device,
every call got its own place in the lane (meta.lane.seq), each client's calls kept their order,
and calls ran one at a time in lane order (each finished before the next began). Prints one JSON
line: counts and latency percentiles (client-observed, ms).

usage: load_check.py URL [CLIENTS] [CALLS]
"""

import json
import sys
import time
from datetime import datetime

import anyio
from mcp import Client

URL = sys.argv[1]
CLIENTS = int(sys.argv[2]) if len(sys.argv) > 2 else 8
CALLS = int(sys.argv[3]) if len(sys.argv) > 3 else 100
TOOLS = [
    ("find_elements", {"element_type": "GridItem", "response_level": "digest"}),
    ("list_windows", {"response_level": "digest"}),
    ("get_ui_tree", {"response_level": "digest"}),
    ("find_elements", {"element_type": "GridItem"}),
]


def fail(msg):
    print(f"load_check: {msg}", file=sys.stderr)
    sys.exit(1)


async def main():
    async with Client(URL, mode="auto") as c:
        r = await c.call_tool("list_devices", {})
        devices = [d["device_id"] for d in r.structured_content["result"]["devices"]]
    if len(devices) < 2:
        fail(f"expected several simulated devices, got {devices}")
    records = []  # (client, device, i, seq, finished, duration, latency)
    errors = []

    async def client(n):
        device = devices[n % len(devices)]
        async with Client(URL, mode="auto") as c:
            for i in range(CALLS):
                tool, args = TOOLS[i % len(TOOLS)]
                t0 = time.perf_counter()
                r = await c.call_tool(tool, dict(args, device_id=device))
                latency = (time.perf_counter() - t0) * 1000
                sc = r.structured_content
                if r.is_error or not sc["ok"]:
                    errors.append((n, i, sc.get("error")))
                    continue
                meta = sc["meta"]
                finished = datetime.fromisoformat(meta["timestamp"]).timestamp() * 1000
                records.append((n, device, i, meta["lane"]["seq"], finished, meta["duration_ms"], latency))

    started = time.perf_counter()
    with anyio.fail_after(600):
        async with anyio.create_task_group() as tg:
            for n in range(CLIENTS):
                tg.start_soon(client, n)
    wall = time.perf_counter() - started
    if errors:
        fail(f"{len(errors)} errors, first: {errors[:3]}")
    if len(records) != CLIENTS * CALLS:
        fail(f"{len(records)} results for {CLIENTS * CALLS} calls")
    for device in set(r[1] for r in records):
        on = sorted((r for r in records if r[1] == device), key=lambda r: r[3])
        seqs = [r[3] for r in on]
        if len(set(seqs)) != len(seqs):
            fail(f"{device}: two calls share a lane place")
        for n in set(r[0] for r in on):
            mine = [r for r in on if r[0] == n]  # in seq order
            if [r[2] for r in mine] != sorted(r[2] for r in mine):
                fail(f"{device}: client {n}'s calls ran out of order")
        for a, b in zip(on, on[1:]):
            # b began (finish - duration) no earlier than a finished (1 ms of rounding each).
            if b[4] - b[5] + 2 < a[4]:
                fail(f"{device}: seq {b[3]} overlapped seq {a[3]}: {a} {b}")
    lat = sorted(r[6] for r in records)
    pct = lambda p: round(lat[min(len(lat) - 1, int(p * len(lat)))], 2)
    print(json.dumps({
        "clients": CLIENTS, "calls_per_client": CALLS, "devices": len(devices),
        "calls": len(records), "errors": 0, "wall_s": round(wall, 2),
        "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99), "max_ms": round(lat[-1], 2),
    }))


anyio.run(main)
