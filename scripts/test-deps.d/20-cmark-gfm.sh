#!/usr/bin/env bash
# cmark-gfm (Debian's package), GitHub's own Markdown renderer, for the step-summary test
# (tests/report/ci_inert.rs): the summary tapflow appends to $GITHUB_STEP_SUMMARY, rendered with
# GitHub's extensions, must hold no image and no link made of device text. Idempotent.
set -euo pipefail
if ! command -v cmark-gfm >/dev/null 2>&1; then
  echo "installing cmark-gfm from Debian's packages"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends cmark-gfm
fi
