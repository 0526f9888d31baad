#!/usr/bin/env bash
# Python 3 (with venv) for the fake HarmonyOS SDK tools of the build_app tests (crates/tapflow-tools/tests/fake-sdk)
# and for the venvs other groups create. From Debian's packages when missing.
set -euo pipefail
need=()
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} from Debian's packages"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${need[@]}"
fi
