#!/usr/bin/env bash
# ffprobe (Debian's ffmpeg) for the simulator's screen-recording test (tests/e2e/sim_fidelity.rs):
# an independent, standard media parser must accept the MP4 the simulated recorder writes.
set -euo pipefail
if ! command -v ffprobe >/dev/null 2>&1; then
  echo "installing ffmpeg (ffprobe) from Debian's packages"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends ffmpeg
fi
