"""An agent's session becomes a flow: drives `tapflow mcp` (stdio, on a simulated device) with the
official Python MCP SDK (PyPI `mcp` 2.3) through the demo login the way an agent explores it
(find_elements for handles, a failed click, a screenshot, a secret typed into the password
field), then calls save_flow and validate_flow on the saved file. Called by
tests/mcp/save_flow.rs, which then runs the saved flow with `tapflow run` on a fresh simulated
device. Exits non-zero (the reason on stderr) on any deviation; prints one JSON line of facts
last (the saved YAML, the save_flow results).

usage: save_flow_check.py (--stdio TAPFLOW_BIN [--platform harmonyos|android] | --url URL
       [--mode legacy] [--stateless]) --secret TEXT
(over --url, the server runs in the current directory with `--output-root flows`; HTTP has
sessions in the handshake era only: `--mode legacy`; `--stateless` checks the refusal without)
"""

import argparse
import json
import os
import sys

import anyio
import jsonschema
from mcp import Client, StdioServerParameters

DEMO = "com.tapflow.demo"
SAVED = "flows/login_saved.yaml"
facts = {}


def fail(msg):
    print(f"save_flow_check: {msg}", file=sys.stderr)
    sys.exit(1)


class Agent:
    def __init__(self, client, tools, sessions=True):
        self.c = client
        self.schemas = {t.name: t.output_schema for t in tools}
        self.sessions = sessions

    async def call(self, name, args, ok=True):
        """ok: True (must succeed), False (must fail), None (either)."""
        r = await self.c.call_tool(name, args)
        sc = r.structured_content
        if sc is None:
            fail(f"{name}: no structuredContent")
        try:
            jsonschema.Draft202012Validator(self.schemas[name]).validate(sc)
        except jsonschema.ValidationError as e:
            fail(f"{name}: structuredContent does not match its outputSchema: {e.message}")
        if ok is True and not sc["ok"]:
            fail(f"{name} {args} failed: {json.dumps(sc['error'])}")
        if ok is False and sc["ok"]:
            fail(f"{name} {args} succeeded, expected a failure: {json.dumps(sc['result'])}")
        if isinstance(sc["meta"].get("session_call"), int) != self.sessions:
            fail(f"{name}: meta.session_call {'missing' if self.sessions else 'without a session'}: {sc['meta']}")
        return sc


async def scenario(a, secret, platform):
    if "save_flow" not in a.schemas:
        fail("tools/list lacks save_flow")
    # A known starting state, as an agent would make it (kept: app lifecycle).
    await a.call("stop_app", {"bundle_name": DEMO})
    await a.call("clear_app_data", {"bundle_name": DEMO})
    launched = await a.call("run_app", {"bundle_name": DEMO})
    # Exploration: read-only, dropped.
    await a.call("get_ui_tree", {"response_level": "digest"})
    field_type = "android.widget.EditText" if platform == "android" else "TextInput"
    found = await a.call("find_elements", {"element_type": field_type})
    # Android ids are `<package>:id/<id>`.
    fields = {e["id"].rsplit("/", 1)[-1]: e["element_handle"] for e in found["result"]["elements"]}
    if set(fields) != {"username", "password"}:
        fail(f"unexpected text fields: {list(fields)}")
    # Acting by handle: saved as the selectors the handles came from.
    await a.call("input_text", {"element_handle": fields["username"], "text": "bob"})
    # A bare call cannot read a password back: it verifies the mask's length (ok, verified:
    # false, length_verified: true); the text went in, and the flow keeps it.
    typed = await a.call("input_text", {"element_handle": fields["password"], "text": secret})
    facts["password_call_ok"] = typed["ok"]
    # A failed call: dropped.
    await a.call("click", {"text": "Sign in"}, ok=False)
    await a.call("click", {"text": "Login"})
    await a.call("wait_for_element", {"text": "Hello, bob!", "timeout_ms": 15000})
    await a.call("screenshot", {})

    # Refusals: a name that is no flow file, a path outside the output roots. Nothing written.
    bad = await a.call("save_flow", {"path": "tapflow.toml"}, ok=False)
    facts["not_yaml"] = bad["error"]["code"]
    bad = await a.call("save_flow", {"path": "/etc/tapflow-saved.yaml"}, ok=False)
    facts["outside"] = bad["error"]["code"]
    bad = await a.call("save_flow", {"path": ".tapflow/saved.yaml"}, ok=False)
    facts["dot_tapflow"] = bad["error"]["code"]

    saved = await a.call("save_flow", {"path": SAVED, "name": "Saved login"})
    r = saved["result"]
    facts["saved"] = r
    with open(r["path"], encoding="utf-8") as f:
        on_disk = f.read()
    if on_disk != r["yaml"]:
        fail("the file differs from the returned yaml")
    if secret in json.dumps(saved):
        fail("the secret is in save_flow's result")

    again = await a.call("save_flow", {"path": SAVED}, ok=False)
    facts["again"] = again["error"]["code"]
    over = await a.call("save_flow", {"path": SAVED, "name": "Saved login", "overwrite": True})
    if over["result"]["yaml"] != r["yaml"]:
        fail("overwrite saved a different flow")
    cut = await a.call(
        "save_flow",
        {"path": "flows/from_launch.yaml", "from": launched["meta"]["session_call"]},
    )
    facts["cut_steps"] = cut["result"]["steps"]
    facts["cut_first"] = cut["result"]["yaml"].split("steps:")[1].strip().splitlines()[0]

    valid = await a.call("validate_flow", {"path": SAVED, "env": {"PASSWORD": "x"}})
    facts["valid"] = valid["result"]["valid"]
    facts["diagnostics"] = valid["result"]["diagnostics"]
    bare = await a.call("validate_flow", {"path": SAVED})
    facts["valid_without_env"] = bare["result"]["valid"]
    facts["without_env_codes"] = [d["code"] for d in bare["result"]["diagnostics"]]


async def stateless(a):
    """MCP 2026-07-28 over HTTP has no sessions: save_flow says so, and what to use instead."""
    await a.call("run_app", {"bundle_name": DEMO})
    r = await a.call("save_flow", {"path": SAVED}, ok=False)
    facts["stateless_code"] = r["error"]["code"]
    facts["stateless_message"] = r["error"]["message"]


async def main(a):
    args = ["mcp", "--sim", "1", "--sim-latency", "none", "--output-root", "flows", "--tools", "all"]
    if a.platform == "android":
        args += ["--platform", "android"]
    target = a.url or StdioServerParameters(command=a.stdio, args=args, cwd=os.getcwd())
    async with Client(target, mode=a.mode) as c:
        tools = (await c.list_tools()).tools
        if a.stateless:
            await stateless(Agent(c, tools, sessions=False))
        else:
            await scenario(Agent(c, tools), a.secret, a.platform)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--stdio")
    g.add_argument("--url")
    p.add_argument("--platform", default="harmonyos")
    p.add_argument("--secret", required=True)
    p.add_argument("--mode", default="auto")
    p.add_argument("--stateless", action="store_true", help="only check the refusal without a session")
    a = p.parse_args()
    anyio.run(main, a)
    print(json.dumps(facts))
