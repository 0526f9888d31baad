"""Drives `tapflow mcp` with the official Python MCP SDK (PyPI `mcp` 1.26 or 2.3) over stdio or
streamable HTTP, on the simulated device, as an agent would. Called by tests/mcp/python.rs with
the interpreter of the venv under test; exits non-zero (with the reason on stderr) on any
deviation. Prints one JSON line of facts (protocol version, progress counts, timings) last.

usage: client_check.py (--stdio TAPFLOW_BIN | --url URL) [--mode auto|legacy]
"""

import argparse
import json
import sys
import time

import anyio
import jsonschema

import mcp

MAJOR = int(mcp.__version__.split(".")[0]) if hasattr(mcp, "__version__") else None
if MAJOR is None:
    from importlib.metadata import version

    MAJOR = int(version("mcp").split(".")[0])

DEMO = "com.tapflow.demo"
LOGIN_FLOW = """name: MCP login
app: com.tapflow.demo
clean_state: true
steps:
  - input_text: {element_id: username, text: bob}
  - click: {element_id: login}
  - wait_for_element: {text: "Hello, bob!", timeout_ms: 8000}
"""
facts = {"sdk": MAJOR}


def fail(msg):
    print(f"client_check (mcp {MAJOR}): {msg}", file=sys.stderr)
    sys.exit(1)


def sc_of(r):
    return r.structuredContent if MAJOR == 1 else r.structured_content


def is_error(r):
    return r.isError if MAJOR == 1 else r.is_error


def output_schema(t):
    return t.outputSchema if MAJOR == 1 else t.output_schema


class Agent:
    """The same calls through either SDK generation."""

    def __init__(self, session, tools):
        self.s = session
        self.schemas = {t.name: output_schema(t) for t in tools}

    async def call(self, name, args, progress=None, ok=True):
        r = await self.s.call_tool(name, args, progress_callback=progress)
        sc = sc_of(r)
        if sc is None:
            fail(f"{name}: no structuredContent")
        try:
            jsonschema.Draft202012Validator(self.schemas[name]).validate(sc)
        except jsonschema.ValidationError as e:
            fail(f"{name}: structuredContent does not match its outputSchema: {e.message}")
        if bool(is_error(r)) != (not sc["ok"]):
            fail(f"{name}: isError {is_error(r)} but ok {sc['ok']}")
        if ok and not sc["ok"]:
            fail(f"{name} {args} failed: {json.dumps(sc['error'])}")
        text = r.content[0].text
        if not text.startswith(f"{name}: "):
            fail(f"{name}: unexpected text block {text!r}")
        return sc


async def scenario(agent, session_cancel):
    facts["tools"] = len(agent.schemas)
    for t in ["run_app", "find_elements", "click", "input_text", "wait_for_element", "screenshot", "logs_query", "run_flow", "get_run"]:
        if t not in agent.schemas:
            fail(f"tools/list lacks {t}")
    # A known starting state: the demo app stopped, its data cleared (logged out).
    await agent.call("stop_app", {"bundle_name": DEMO})
    await agent.call("clear_app_data", {"bundle_name": DEMO})
    await agent.call("run_app", {"bundle_name": DEMO})
    found = await agent.call("find_elements", {"element_id": "username"})
    handle = found["result"]["elements"][0]["element_handle"]
    typed = await agent.call("input_text", {"element_handle": handle, "text": "alice"})
    if typed["result"]["verified"] is not True or typed["result"]["actual_text"] != "alice":
        fail(f"input_text not verified: {typed['result']}")
    await agent.call("click", {"element_id": "login"})
    progress = []

    async def on_progress(p, total, message):
        progress.append((p, message))

    waited = await agent.call(
        "wait_for_element", {"text": "Hello, alice!", "timeout_ms": 10000, "interval_ms": 100}, progress=on_progress
    )
    if not waited["result"]["satisfied"]:
        fail("wait_for_element not satisfied")
    if not progress:
        fail("no progress notification during wait_for_element")
    values = [p for p, _ in progress]
    if values != sorted(set(values)):
        fail(f"progress must increase: {values}")
    facts["wait_progress_notifications"] = len(progress)
    shot = await agent.call("screenshot", {})
    if shot["result"]["file_size"] <= 0:
        fail("empty screenshot")
    logs = await agent.call(
        "logs_query", {"mode": "markers", "marker_keywords": ["LOGIN_SUCCESS user=alice"], "seconds": 120}
    )
    if not logs["result"]["matched"]:
        fail(f"marker not found: {logs['result']}")
    # A whole flow, with one progress notification per step.
    flow_progress = []

    async def on_flow_progress(p, total, message):
        flow_progress.append(message or "")

    ran = await agent.call("run_flow", {"yaml": LOGIN_FLOW}, progress=on_flow_progress)
    if not ran["result"]["passed"]:
        fail(f"run_flow did not pass: {json.dumps(ran['result'])[:2000]}")
    steps = [m for m in flow_progress if m.startswith("step ")]
    if len(steps) < 3:
        fail(f"run_flow: expected a progress notification per step, got {flow_progress}")
    facts["run_flow_progress"] = len(flow_progress)
    got = await agent.call("get_run", {"run_id": ran["result"]["run_id"]})
    if got["result"]["status"] != "passed":
        fail(f"get_run: {got['result']['status']}")
    # Cancellation of a long wait: the element never appears; the client gives up after 0.8 s.
    started = time.monotonic()
    await session_cancel(agent, "wait_for_element", {"text": "never there", "timeout_ms": 60000})
    after = await agent.call("find_elements", {"text": "Hello, bob!"})
    facts["after_cancel_s"] = round(time.monotonic() - started, 3)
    facts["after_cancel_lane_waited_ms"] = after["meta"]["lane"]["waited_ms"]
    if after["meta"]["lane"]["waited_ms"] > 5000:
        fail(f"the cancelled wait held the device: {after['meta']['lane']}")
    # A bad value is a tool error the agent can read; an unknown tool a protocol error.
    bad = await agent.call("wait_for_element", {"text": "x", "state": "soon"}, ok=False)
    if bad["error"]["code"] != "INVALID_WAIT_STATE":
        fail(f"expected INVALID_WAIT_STATE: {bad['error']}")
    try:
        await agent.s.call_tool("no_such_tool", {})
    except Exception as e:  # McpError (1.x) / MCPError (2.x)
        code = getattr(getattr(e, "error", None), "code", None)
        if code != -32602:
            fail(f"unknown tool: expected JSON-RPC -32602, got {e!r}")
    else:
        fail("unknown tool did not raise a JSON-RPC error")


async def cancel_v1(agent, name, args):
    """mcp 1.x abandons a call without telling the server: send notifications/cancelled."""
    from mcp import types

    s = agent.s
    async with anyio.create_task_group() as tg:

        async def long_call():
            try:
                await s.call_tool(name, args)
            except Exception:
                pass

        tg.start_soon(long_call)
        await anyio.sleep(0.8)
        request_id = s._request_id - 1  # the call above is the only one in flight
        await s.send_notification(
            types.ClientNotification(
                types.CancelledNotification(
                    params=types.CancelledNotificationParams(requestId=request_id, reason="test gave up")
                )
            )
        )
        # mcp 1.x ignores the answer to a cancelled request; stop waiting for it.
        tg.cancel_scope.cancel()


async def cancel_v2(agent, name, args):
    """mcp 2.x cancels the request itself when the caller's scope gives up."""
    with anyio.move_on_after(0.8):
        await agent.s.call_tool(name, args)


async def run_v1(a):
    from mcp import ClientSession

    if a.stdio:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(command=a.stdio, args=["mcp", "--sim", "1", "--sim-latency", "none"])
        cm = stdio_client(params)
    else:
        from mcp.client.streamable_http import streamablehttp_client

        cm = streamablehttp_client(a.url)
    async with cm as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            facts["protocol"] = init.protocolVersion
            tools = (await s.list_tools()).tools
            await scenario(Agent(s, tools), cancel_v1)


async def run_v2(a):
    from mcp import Client

    if a.stdio:
        from mcp import StdioServerParameters

        target = StdioServerParameters(command=a.stdio, args=["mcp", "--sim", "1", "--sim-latency", "none"])
    else:
        target = a.url
    async with Client(target, mode=a.mode) as c:
        facts["protocol"] = c.session.protocol_version
        tools = (await c.list_tools()).tools
        await scenario(Agent(c, tools), cancel_v2)


def main():
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--stdio")
    g.add_argument("--url")
    p.add_argument("--mode", default="auto")
    a = p.parse_args()
    started = time.monotonic()
    anyio.run(run_v1 if MAJOR == 1 else run_v2, a)
    facts["total_s"] = round(time.monotonic() - started, 3)
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
