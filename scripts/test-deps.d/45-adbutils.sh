#!/usr/bin/env bash
# adbutils 2.12.0 (PyPI), a third-party adb client library, for tests/android/adbutils.rs
# (tests/android/adbutils_api.py): its adb-level API run unmodified against the simulated
# Android device through the private adb server of `tapflow sim start --platform android`
# (the adb client itself comes from 40-adb.sh). Pinned in its own venv under .test-deps/.
# Idempotent: a venv whose pinned version is already installed is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib/venv.sh
install_venv .test-deps/adbutils-2.12 "adbutils==2.12.0"
