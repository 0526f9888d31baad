#!/usr/bin/env bash
# adbutils 2.12.0 (PyPI), a third-party adb client library, for tests/android/adbutils.rs
# (tests/android/adbutils_api.py): its adb-level API run unmodified against the simulated
# Android device through the private adb server of `tapflow sim start --platform android`
# (the adb client itself comes from 40-adb.sh). Pinned in its own venv under .test-deps/.
# Idempotent: a venv whose pinned version is already installed is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.test-deps/adbutils-2.12
want="adbutils==2.12.0"
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$want" ] && [ -x "$dir/bin/python" ]; then
  exit 0
fi
echo "creating $dir with: $want"
rm -rf "$dir"
mkdir -p .test-deps
python3 -m venv "$dir"
"$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$want"
echo "$want" > "$dir/.installed"
