"""Cancellation per the MCP spec (2025-06-18 `notifications/cancelled`), driven by the official
Python SDK (PyPI `mcp` 1.26) over stdio against `tapflow mcp` with one simulated device at
realistic latency (so a UI dump is really in flight when the cancel lands). Called by
tests/mcp/cancel.rs; exits non-zero (with the reason on stderr) on any deviation and prints one
JSON line of measurements last.

Each of RUNS rounds: a `wait_for_element` on an element that never appears, with a progress
token; on its OBSERVE-th progress notification (sent as an observation's dump starts, so the
dump is in flight) the client sends `notifications/cancelled`, then at once the next call on the
same device (`find_elements`) and a `ping`. Checked:
- no response ever arrives for a cancelled request (its call never returns; the SDK reports no
  response with an unknown id) — checked when all rounds are over, seconds later;
- no progress notification for a cancelled token arrives after the ping's answer (the server
  read the cancel before the ping, and answers in order);
- the next call succeeds on the device. Measured: its `meta.lane.waited_ms` (server side: from
  its arrival to its turn on the device) and its answer time from the cancel.

With --slow (Android): every dump takes 60 s more (`--sim-faults slow-dump=60s`). Rounds
alternate between `wait_for_element` (its dump runs on a helper thread) and `get_ui_tree` (its
dump runs on the call's own thread, silent but for the 1 s heartbeat); the cancel comes on the
first progress notification, once the `adb` child running `uiautomator dump` is seen. Checked:
that child is gone (polled, hang guard 10 s, far below the 60 s it would otherwise live); no
progress after the ping's answer; the next call on the device (`query_package`, no dump) gets
its turn (hang guard 60 s: before this change a `get_ui_tree` held the device for its whole
dump). Measured: when the child was gone, and the next call's `meta.lane.waited_ms`.

usage: cancel_check.py TAPFLOW_BIN [--platform harmonyos|android] [--runs N] [--slow]
"""

import argparse
import json
import os
import statistics
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

DEMO = "com.tapflow.demo"
# Generous hang guard per awaited event; never a measured bound.
GUARD_S = 60


def fail(msg):
    print(f"cancel_check: {msg}", file=sys.stderr)
    sys.exit(1)


class Watch:
    """Every notification and stray message the session hands to the client."""

    def __init__(self):
        self.progress = {}  # token -> [monotonic arrival times]
        self.strays = []  # responses for unknown request ids (a cancelled request answered)
        self.event = anyio.Event()

    async def handle(self, message):
        if isinstance(message, Exception):
            self.strays.append(repr(message))
        elif isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ProgressNotification
        ):
            token = message.root.params.progressToken
            self.progress.setdefault(token, []).append(time.monotonic())
        self.event.set()

    async def until(self, cond):
        with anyio.fail_after(GUARD_S):
            while not cond():
                self.event = anyio.Event()
                if cond():
                    return
                await self.event.wait()


def dump_children():
    """Processes under this script's `tapflow mcp` child running a UI dump (Linux /proc)."""
    procs = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        procs[int(pid)] = (ppid, cmd)
    servers = [p for p, (pp, cmd) in procs.items() if pp == os.getpid() and " mcp " in cmd]
    return [cmd for p, (pp, cmd) in procs.items() if pp in servers and "uiautomator" in cmd]


async def gone_within(deadline_s):
    """Seconds until no dump child is left (None: still there at the deadline)."""
    started = time.monotonic()
    while dump_children():
        if time.monotonic() - started > deadline_s:
            return None
        await anyio.sleep(0.002)  # a poll slice against the deadline above
    return time.monotonic() - started


async def call_ok(s, name, args):
    r = await s.call_tool(name, args)
    sc = r.structuredContent
    if r.isError or not sc or not sc["ok"]:
        fail(f"{name} {args} failed: {json.dumps(sc)[:1500]}")
    return sc


async def main(a):
    watch = Watch()
    args = ["mcp", "--sim", "1", "--sim-latency", "realistic", "--platform", a.platform, "--tools", "all"]
    if a.slow:
        args += ["--sim-faults", "slow-dump=60s"]
    # The server gets this script's environment (the test's scratch HOME, TAPFLOW_ADB).
    params = StdioServerParameters(command=a.bin, args=args, env=dict(os.environ))
    answered = []  # request ids of cancelled calls that returned anyway
    facts = {"platform": a.platform, "runs": a.runs, "slow": a.slow}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=watch.handle) as s:
            await s.initialize()
            await call_ok(s, "run_app", {"bundle_name": DEMO})
            # The next call's own cost, without a cancel before it (median of 3).
            own = []
            for _ in range(0 if a.slow else 3):
                t = time.monotonic()
                await call_ok(s, "find_elements", {"element_id": "login"})
                own.append((time.monotonic() - t) * 1000)
            if own:
                facts["next_call_alone_ms_p50"] = round(statistics.median(own), 1)
            waited, answer, late_progress, progress_before, killed = [], [], [], [], []
            async with anyio.create_task_group() as tg:
                for _ in range(a.runs):
                    rid = s._request_id  # the id the call below takes (no request in between)

                    async def ignore(*_):
                        pass

                    slow_tree = a.slow and len(killed) % 2 == 1
                    if slow_tree:
                        tool, targs = "get_ui_tree", {}
                    else:
                        tool, targs = "wait_for_element", {"text": "never there", "timeout_ms": 120000, "interval_ms": 0}

                    async def long_call(rid=rid, tool=tool, targs=targs):
                        await s.call_tool(tool, targs, progress_callback=ignore)
                        answered.append(rid)

                    tg.start_soon(long_call)
                    await watch.until(lambda: len(watch.progress.get(rid, [])) >= a.observe)
                    if a.slow:
                        # The dump's adb child is running (so the check below proves something).
                        started = time.monotonic()
                        while not dump_children():
                            if time.monotonic() - started > 10:
                                fail("no adb child was seen running the dump")
                            await anyio.sleep(0.002)
                    cancelled_at = time.monotonic()
                    await s.send_notification(
                        types.ClientNotification(
                            types.CancelledNotification(
                                params=types.CancelledNotificationParams(requestId=rid, reason="gave up")
                            )
                        )
                    )
                    nxt = {"done": anyio.Event()}
                    # The next call on the device: one without a dump when every dump is slow.
                    nxt_tool, nxt_args = ("query_package", {"bundle_name": DEMO, "info_type": "abilities"}) if a.slow else ("find_elements", {"element_id": "login"})

                    async def next_call(nxt=nxt, nxt_tool=nxt_tool, nxt_args=nxt_args):
                        nxt["sc"] = await call_ok(s, nxt_tool, nxt_args)
                        nxt["at"] = time.monotonic()
                        nxt["done"].set()

                    tg.start_soon(next_call)
                    with anyio.fail_after(GUARD_S):
                        await s.send_ping()
                    fence = time.monotonic()
                    if a.slow:
                        took = await gone_within(10)
                        if took is None:
                            fail(f"{tool}: the abandoned dump's process still runs 10 s after the cancel: {dump_children()}")
                        killed.append(round((time.monotonic() - cancelled_at) * 1000, 1))
                    with anyio.fail_after(GUARD_S):
                        await nxt["done"].wait()
                    waited.append(nxt["sc"]["meta"]["lane"]["waited_ms"])
                    answer.append((nxt["at"] - cancelled_at) * 1000)
                    progress_before.append(sum(1 for t in watch.progress[rid] if cancelled_at <= t <= fence))
                    late_progress.append((rid, fence))
                # Every round is over (seconds after the first cancel): nothing may have come
                # for a cancelled request since.
                for rid, fence in late_progress:
                    late = [round((t - fence) * 1000) for t in watch.progress.get(rid, []) if t > fence]
                    if late:
                        fail(f"request {rid}: progress arrived {late} ms after the cancel was read")
                if answered:
                    fail(f"cancelled requests were answered: {answered}")
                if watch.strays:
                    fail(f"responses for unknown request ids: {watch.strays}")
                tg.cancel_scope.cancel()

    def p(xs, q):
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 1)

    if a.slow:
        facts.update(dump_process_gone_after_cancel_ms={"p50": p(killed, 0.5), "max": max(killed), "all": killed})
    facts.update(
        lane_waited_ms={"p50": p(waited, 0.5), "max": max(waited), "all": waited},
        next_answer_after_cancel_ms={"p50": p(answer, 0.5), "max": round(max(answer), 1)},
        progress_between_cancel_and_ping=sum(progress_before),
    )
    print(json.dumps(facts))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--platform", default="harmonyos")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--observe", type=int, default=2, help="cancel on this progress notification")
    ap.add_argument("--slow", action="store_true")
    a = ap.parse_args()
    if a.slow:
        a.observe = 1
    anyio.run(main, a)
