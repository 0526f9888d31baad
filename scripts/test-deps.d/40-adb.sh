#!/usr/bin/env bash
# The real Android Debug Bridge client (Debian's `adb` package, 29.0.6) for the Android tests
# (`tests/android/`, `crates/tapflow-sim/tests/backends/adb_*.rs`, `crates/tapflow-tools/tests/tools/android.rs`): they attach the simulated Android device with `adb connect` and drive it
# through the real client, and tapflow's adb backend spawns it. Installed from Debian's packages
# when `adb` is not on PATH (the package puts it at /usr/bin/adb).
set -euo pipefail
if ! command -v adb >/dev/null 2>&1; then
  echo "installing adb from Debian's packages"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends adb
fi
adb version | head -n 2
