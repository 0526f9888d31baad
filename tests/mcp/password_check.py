"""A bare `input_text` into the demo app's password field through the official Python SDK (PyPI
`mcp` 1.26) over stdio, as an agent types a login: called by tests/mcp/secrets.rs, exits
non-zero (with the reason on stderr) on any deviation, prints one JSON line of facts last.

Without faults the field shows one mask character per typed character: the call must succeed
(`isError` false) with `verified: false, length_verified: true`. With `--faults` that lose
characters the mask is shorter: the call must fail with `TEXT_NOT_READABLE`. Either way the
typed text must appear nowhere in what the client receives (content text, structuredContent,
progress messages), only its length as `•`.

usage: password_check.py TAPFLOW_BIN SECRET [--platform P] [--faults SPEC]
"""

import argparse
import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

DEMO = "com.tapflow.demo"


def fail(msg):
    print(f"password_check: {msg}", file=sys.stderr)
    sys.exit(1)


async def main(a):
    args = ["mcp", "--sim", "1", "--sim-latency", "none", "--platform", a.platform]
    if a.faults:
        args += ["--sim-faults", a.faults]
    seen = []  # everything the server sent besides the results

    async def watch(message):
        seen.append(repr(message))

    params = StdioServerParameters(command=a.bin, args=args, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=watch) as s:
            await s.initialize()
            r = await s.call_tool("run_app", {"bundle_name": DEMO})
            if r.isError:
                fail(f"run_app: {r.content[0].text}")

            async def progress(p, total, message):
                seen.append(message or "")

            r = await s.call_tool(
                "input_text", {"element_id": "password", "text": a.secret}, progress_callback=progress
            )
    sc = r.structuredContent
    everything = json.dumps(sc, ensure_ascii=False) + r.content[0].text + "".join(seen)
    if a.secret in everything:
        fail(f"the password was echoed: {everything[:3000]}")
    dots = "\u2022" * len(a.secret)
    if a.faults:
        if not r.isError or sc["error"]["code"] != "TEXT_NOT_READABLE":
            fail(f"a mask of the wrong length must fail with TEXT_NOT_READABLE: {json.dumps(sc)[:2000]}")
        d = sc["error"]["details"]
        if d.get("masked") is not True or d.get("requested_text") != dots:
            fail(f"the error must say masked and keep only the length: {json.dumps(d)}")
    else:
        res = sc["result"] if sc else None
        if r.isError or not res:
            fail(f"the password login must succeed: {r.content[0].text}")
        want = {"verified": False, "length_verified": True, "masked": True, "masked_length": len(a.secret)}
        got = {k: res.get(k) for k in want}
        if got != want or res["requested_text"] != dots or res["text"] != dots:
            fail(f"result: {json.dumps(res)}")
        if not r.content[0].text.startswith("input_text: ok: length verified"):
            fail(f"outcome line: {r.content[0].text[:200]}")
    print(json.dumps({"platform": a.platform, "faults": a.faults, "isError": bool(r.isError), "text": r.content[0].text[:300]}, ensure_ascii=False))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("secret")
    ap.add_argument("--platform", default="harmonyos")
    ap.add_argument("--faults")
    anyio.run(main, ap.parse_args())
