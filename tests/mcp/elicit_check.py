"""A person approving (or not) through MCP elicitation, with the official Python MCP SDK (PyPI `mcp`
1.26 or 2.3) as the client, against `tapflow mcp --sim 1 --require-approval` over stdio (started
in the working directory, whose tapflow.toml denies `clear_app_data` for MCP) or over streamable
HTTP (a server the test started the same way). Called by
tests/mcp/elicitation.rs; exits non-zero (reason on stderr) on any deviation, and prints one JSON
line of facts last.

In both eras (handshake: 1.26, or 2.3 with --mode legacy, where the server sends
elicitation/create; 2026-07-28: 2.3 with --mode auto, where the call returns an
InputRequiredResult and the SDK retries it with the answer): a denied step is refused without
asking anyone; a flow with two steps needing approval asks once, listing both with their lines;
decline → APPROVAL_DECLINED, dismiss → APPROVAL_CANCELLED, both with the app still installed;
accept → the flow runs, meta.approval and the run's result.json record the answer, the app is
gone.

usage: elicit_check.py (--stdio TAPFLOW_BIN | --url URL) [--mode auto|legacy]
"""

import argparse
import json
import sys

import anyio

import mcp

MAJOR = int(mcp.__version__.split(".")[0]) if hasattr(mcp, "__version__") else None
if MAJOR is None:
    from importlib.metadata import version

    MAJOR = int(version("mcp").split(".")[0])

if MAJOR == 1:
    from mcp import types
else:
    import mcp_types as types

DEMO = "com.tapflow.demo"
# Two steps that need approval (lines 3 and 5): one question for the whole flow.
REMOVE = """name: remove the demo
steps:
  - uninstall_app: com.tapflow.demo
finally:
  - uninstall_app: com.tapflow.demo
    optional: true
"""
DENIED = """name: wipe
steps:
  - clear_app_data: com.tapflow.demo
"""
SERVER = ["mcp", "--sim", "1", "--sim-latency", "none", "--require-approval"]
facts = {"sdk": MAJOR, "asked": []}
answer = {"action": "decline"}


def fail(msg):
    print(f"elicit_check (mcp {MAJOR}): {msg}", file=sys.stderr)
    sys.exit(1)


async def on_elicit(context, params):
    schema = params.requestedSchema if MAJOR == 1 else params.requested_schema
    schema = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True)
    facts["asked"].append({"message": params.message, "schema": schema})
    action = answer["action"]
    content = {"approve": True, "approved_by": "qa-lead", "reason": "reset the demo"} if action == "accept" else None
    return types.ElicitResult(action=action, content=content)


def sc_of(r):
    return r.structuredContent if MAJOR == 1 else r.structured_content


async def call(s, name, args):
    return sc_of(await s.call_tool(name, args))


async def installed(s):
    sc = await call(s, "query_package", {"info_type": "list", "keyword": DEMO})
    if not sc["ok"]:
        fail(f"query_package: {sc}")
    return DEMO in (sc["result"].get("packages") or [])


async def expect_error(s, code, yaml):
    sc = await call(s, "run_flow", {"yaml": yaml})
    if sc["ok"] or sc["error"]["code"] != code:
        fail(f"run_flow: expected {code}, got {json.dumps(sc)[:2000]}")
    return sc


async def scenario(s):
    if not await installed(s):
        fail("the demo app is not installed at the start")
    # tapflow.toml [mcp] deny_tools: refused at plan time, nobody asked.
    sc = await expect_error(s, "STEP_DENIED", DENIED)
    if "inline.yaml:3" not in sc["error"]["message"] or facts["asked"]:
        fail(f"denied step: {sc['error']['message']} (asked {len(facts['asked'])})")
    for action, code in [("decline", "APPROVAL_DECLINED"), ("cancel", "APPROVAL_CANCELLED")]:
        answer["action"] = action
        await expect_error(s, code, REMOVE)
        if not await installed(s):
            fail(f"{action}: the app was uninstalled")
    asked = len(facts["asked"])
    answer["action"] = "accept"
    sc = await call(s, "run_flow", {"yaml": REMOVE})
    if not sc["ok"] or not sc["result"]["passed"]:
        fail(f"accepted flow did not pass: {json.dumps(sc)[:2000]}")
    if len(facts["asked"]) != asked + 1:
        fail("one question per flow expected")
    a = sc["meta"].get("approval") or {}
    if a.get("via") != "elicitation" or a.get("action") != "accept" or a.get("approved_by") != "qa-lead":
        fail(f"meta.approval: {a}")
    if [st["line"] for st in a.get("steps", [])] != [3, 5]:
        fail(f"meta.approval.steps: {a.get('steps')}")
    with open(sc["result"]["result_path"]) as f:
        recorded = json.load(f).get("approval") or {}
    if recorded.get("via") != "elicitation" or recorded.get("approved_by") != "qa-lead":
        fail(f"result.json approval: {recorded}")
    if await installed(s):
        fail("accepted: the app is still installed")
    facts["meta_approval"] = a
    message = facts["asked"][-1]["message"]
    if "inline.yaml:3" not in message or "inline.yaml:5" not in message:
        fail(f"the question does not list the steps: {message}")


async def run_v1(a):
    from mcp import ClientSession, StdioServerParameters

    if a.stdio:
        from mcp.client.stdio import stdio_client

        cm = stdio_client(StdioServerParameters(command=a.stdio, args=SERVER))
    else:
        from mcp.client.streamable_http import streamablehttp_client

        cm = streamablehttp_client(a.url)
    async with cm as streams:
        async with ClientSession(streams[0], streams[1], elicitation_callback=on_elicit) as s:
            init = await s.initialize()
            facts["protocol"] = init.protocolVersion
            await scenario(s)


async def run_v2(a):
    from mcp import Client, StdioServerParameters

    target = StdioServerParameters(command=a.stdio, args=SERVER) if a.stdio else a.url
    async with Client(target, mode=a.mode, elicitation_callback=on_elicit) as c:
        facts["protocol"] = c.session.protocol_version
        await scenario(c)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--stdio")
    g.add_argument("--url")
    p.add_argument("--mode", default="auto")
    a = p.parse_args()
    anyio.run(run_v1 if MAJOR == 1 else run_v2, a)
    facts["asked"] = len(facts["asked"])
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
