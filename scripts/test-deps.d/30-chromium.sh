#!/usr/bin/env bash
# Headless Chromium for the HTML report test (tests/report/html_browser.rs): Debian's chromium
# package when /usr/bin/chromium is missing, and playwright-core (pinned, from npm, into
# .test-deps/browser) to drive it. playwright-core never downloads a browser: the test launches
# /usr/bin/chromium itself (executablePath). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! [ -x /usr/bin/chromium ]; then
  echo "installing chromium from Debian's packages"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "installing nodejs and npm from Debian's packages"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq nodejs npm
fi
DIR=.test-deps/browser
PIN=playwright-core@1.65.1
if [ -f "$DIR/.pin" ] && [ "$(cat "$DIR/.pin")" = "$PIN" ] && [ -d "$DIR/node_modules/playwright-core" ]; then
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR"
( cd "$DIR" && echo '{"name":"tapflow-test-browser","private":true}' > package.json \
  && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --silent "$PIN" )
echo "$PIN" > "$DIR/.pin"
