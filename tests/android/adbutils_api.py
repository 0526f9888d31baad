"""adbutils 2.12's adb-level API, unmodified, against one simulated Android device.

Run by tests/android/adbutils.rs with the private adb server's port and the device's serial.
Each call is checked against what it gives on a device; the first one that does not ends
the script with status 1 and says which call and what it gave. Prints `ok NAME` per call.
Deadlines are wall-clock hang guards, never timings.
"""

import io
import os
import socket
import sys
import tempfile
import time

import adbutils

PORT, SERIAL = int(sys.argv[1]), sys.argv[2]
DEMO = "com.tapflow.demo"
GUARD = 30.0


def check(name, ok, got):
    if not ok:
        print(f"FAILED {name}: {got!r}", flush=True)
        sys.exit(1)
    print(f"ok {name}", flush=True)


def wait_for(what, probe):
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.1)
    print(f"FAILED {what}: not within {GUARD}s", flush=True)
    sys.exit(1)


adb = adbutils.AdbClient(host="127.0.0.1", port=PORT)
d = adb.device(SERIAL)

# shell, with the exit status (shell v2 and adbutils' v1 `echo MAGIC$?` form)
r = d.shell2("echo hi; false", v2=True)
check("shell2 v2 exit status", (r.returncode, r.output) == (1, "hi\n"), r)
r = d.shell2("echo hi; false")
check("shell2 v1 exit status", (r.returncode, r.output.strip()) == (1, "hi"), r)
check("shell", d.shell(["echo", "a b"]) == "a b", d.shell(["echo", "a b"]))
check("getprop model", d.prop.model == d.shell("getprop ro.product.model"), d.prop.model)

# push / pull / stat / list over the sync service
payload = os.urandom(70_000)
d.sync.push(io.BytesIO(payload), "/sdcard/Download/adbutils.bin")
st = d.sync.stat("/sdcard/Download/adbutils.bin")
check("sync.stat size", st.size == len(payload), st)
check("sync.stat missing", d.sync.stat("/sdcard/none.bin").size == 0, d.sync.stat("/sdcard/none.bin"))
names = [f.path for f in d.sync.list("/sdcard/Download")]
check("sync.list", "adbutils.bin" in names, names)
check("sync.read_bytes", d.sync.read_bytes("/sdcard/Download/adbutils.bin") == payload, "bytes differ")
with tempfile.TemporaryDirectory() as tmp:
    local = os.path.join(tmp, "back.bin")
    d.sync.pull("/sdcard/Download/adbutils.bin", local)
    with open(local, "rb") as f:
        check("sync.pull", f.read() == payload, "bytes differ")
size = d.shell("stat -c %s /sdcard/Download/adbutils.bin")
check("stat -c %s", size == str(len(payload)), size)

# apps: list, info, start, current, stop
pkgs = d.list_packages()
check("list_packages", DEMO in pkgs and "com.android.settings" in pkgs, pkgs)
info = d.app_info(DEMO)
check(
    "app_info",
    info is not None and info.version_name and info.version_code and info.path.startswith("/data/app/")
    and info.first_install_time is not None,
    info,
)
check("app_info unknown", d.app_info("com.example.none") is None, d.app_info("com.example.none"))
d.app_start(DEMO)
cur = wait_for("app_current", lambda: (lambda c: c if c.package == DEMO else None)(d.app_current()))
check("app_current", cur.activity.endswith("EntryAbility"), cur)

# the screen: size, rotation, state, screenshot, UI dump
ws = d.window_size()
check("window_size", (ws.width, ws.height) == (1080, 2400), ws)
check("rotation", d.rotation() == 0, d.rotation())
check("is_screen_on", d.is_screen_on() is True, d.is_screen_on())
img = d.screenshot(error_ok=False)
check("screenshot", img.size == (1080, 2400), img.size)
xml = d.dump_hierarchy()
check("dump_hierarchy", xml.startswith("<?xml") and "com.tapflow.demo:id/username" in xml, xml[:200])
d.shell("settings put system accelerometer_rotation 0")
d.shell("settings put system user_rotation 1")
check("rotation after user_rotation 1", d.rotation() == 1, d.rotation())
ws = d.window_size()
check("window_size landscape", (ws.width, ws.height) == (2400, 1080), ws)
d.shell("settings put system user_rotation 0")
d.keyevent("POWER")
check("is_screen_on after POWER", d.is_screen_on() is False, d.is_screen_on())
d.keyevent("WAKEUP")
check("is_screen_on after WAKEUP", d.is_screen_on() is True, d.is_screen_on())

# forward: registered on the host; a connection reaches the device's tcp: service, which
# nothing on the simulated device listens on, so the device closes it as a device does
local_port = d.forward_port(8765)
fw = [(f.local, f.remote) for f in d.forward_list()]
check("forward_list", (f"tcp:{local_port}", "tcp:8765") in fw, fw)
s = socket.create_connection(("127.0.0.1", local_port), timeout=GUARD)
s.settimeout(GUARD)
check("forward to a closed device port", s.recv(16) == b"", "data from nowhere")
s.close()

# logcat: `logcat -v time` streams into the file until stopped
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "logcat.txt")
    evt = d.logcat(path, clear=True)
    d.app_stop(DEMO)
    d.app_start(DEMO)

    def shown():
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return text if "PAGE_SHOWN page=LoginPage" in text else None

    text = wait_for("logcat streamed", shown)
    line = next(l for l in text.splitlines() if "PAGE_SHOWN" in l)
    check("logcat -v time line", line[2] == "-" and " I/" in line and "): PAGE_SHOWN" in line, line)
    evt.stop_nowait()
    # The reader notices the stop at its next line; a device always logs, so log one.
    d.app_stop(DEMO)
    d.app_start(DEMO)
    wait_for("logcat stopped", evt.is_done)
    check("logcat stop", evt.is_done(), "running")

print("ALL OK", flush=True)
