"""Reads a tapflow junit.xml the way CI consumers do, for tests/report_mixed/main.rs.

1. xmlschema validates it against junit-10.xsd (Jenkins' schema); any error fails.
2. junitparser (its xunit2 flavour, which knows flakyFailure/rerunFailure) parses it.
Prints what junitparser saw as JSON: suites with properties, cases with verdicts.
Usage: python check_junit.py JUNIT_XML XSD
"""
import json
import re
import sys

import xmlschema
from junitparser import xunit2
from junitparser import Error, Failure, Skipped

xml_path, xsd_path = sys.argv[1], sys.argv[2]

schema = xmlschema.XMLSchema(xsd_path)
try:
    errors = list(schema.iter_errors(xml_path))
except xmlschema.XMLResourceError as e:  # ill-formed XML raises instead of listing
    print(f"ill-formed XML: {e}", file=sys.stderr)
    sys.exit(1)
if errors:
    for e in errors:
        print(f"schema: {e.reason} at {e.path}", file=sys.stderr)
    sys.exit(1)

xml = xunit2.JUnitXml.fromfile(xml_path)
suites = []
cases = []
for suite in xml:
    suites.append({
        "name": suite.name,
        "tests": suite.tests,
        "properties": {p.name: p.value for p in suite.properties()},
    })
    for case in suite:
        results = case.result
        if any(isinstance(r, Failure) for r in results):
            verdict = "failure"
        elif any(isinstance(r, Error) for r in results):
            verdict = "error"
        elif any(isinstance(r, Skipped) for r in results):
            verdict = "skipped"
        else:
            verdict = "passed"
        first = results[0] if results else None
        out = case.system_out or ""
        cases.append({
            "classname": case.classname,
            "name": case.name,
            "time": case.time,
            "result": verdict,
            "type": first.type if first is not None else None,
            "message": first.message if first is not None else None,
            "flaky": len(case.flaky_failures()),
            "reruns": len(case.rerun_failures()),
            "attachments": re.findall(r"\[\[ATTACHMENT\|([^\]|]+)\]\]", out),
        })
print(json.dumps({"suites": suites, "cases": cases}, indent=1))
