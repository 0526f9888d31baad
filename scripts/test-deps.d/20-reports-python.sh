#!/usr/bin/env bash
# The real JUnit consumers the report tests check junit.xml with (tests/report_mixed/main.rs):
# xmlschema validates it against tests/fixtures/junit/junit-10.xsd, junitparser reads it as
# CI tools do. Pinned versions, in a venv under .test-deps/ (idempotent: nothing happens when
# the venv already has exactly these versions). Needs python3 with venv (10-python.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.test-deps/reports-venv
PINS=(xmlschema==4.3.2 elementpath==5.1.4 junitparser==5.0.3)
STAMP="$VENV/.pins"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "${PINS[*]}" ]; then
  exit 0
fi
echo "creating $VENV with ${PINS[*]}"
rm -rf "$VENV"
mkdir -p .test-deps
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "${PINS[@]}"
"$VENV/bin/python" -c 'import xmlschema, junitparser; print("xmlschema", xmlschema.__version__, "junitparser", junitparser.version)'
echo "${PINS[*]}" > "$STAMP"
