#!/usr/bin/env bash
# The main demonstration: what `make demo` shows a newcomer.
set -euo pipefail
cd "$(dirname "$0")/.."
assay=.venv/bin/assay

echo "== The seed's six cases, scored from recorded outcomes =="
echo "\$ assay score examples/policy/policy.jsonl examples/policy/results.jsonl"
$assay score examples/policy/policy.jsonl examples/policy/results.jsonl
echo
echo "== The same dataset plus E7, a case with no recorded output =="
echo "\$ assay score examples/policy/policy-e7.jsonl examples/policy/results.jsonl"
$assay score examples/policy/policy-e7.jsonl examples/policy/results.jsonl
