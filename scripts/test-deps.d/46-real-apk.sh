#!/usr/bin/env bash
# A real APK for crates/tapflow-sim/tests/backends/adb_real_apk.rs: `apks/settings_apk-debug.apk`
# from the npm package io.appium.settings 8.0.10 (Apache-2.0, Appium's settings helper app),
# fetched with `npm pack` and unpacked under .test-deps/. It is a built APK (binary AXML
# manifest, dex, resources, signature), which the simulated Android device must install.
# Idempotent: an unpacked copy of the pinned version is left alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.test-deps/io.appium.settings-8.0.10
want="io.appium.settings@8.0.10"
if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$want" ] && [ -f "$dir/settings_apk-debug.apk" ]; then
  exit 0
fi
echo "fetching $want into $dir"
rm -rf "$dir"
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$want" >/dev/null)
tar -xzf "$tmp"/io.appium.settings-8.0.10.tgz -C "$tmp" package/apks/settings_apk-debug.apk
mv "$tmp"/package/apks/settings_apk-debug.apk "$dir"/
echo "$want" > "$dir/.installed"
