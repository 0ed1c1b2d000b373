#!/usr/bin/env bash
# The main demonstration: what `make demo` shows a newcomer.
set -euo pipefail
cd "$(dirname "$0")/.."
assay=.venv/bin/assay

cat <<'INTRO'
assay evaluates LLM applications with numbers you can trust: every case counted once
with one status, each rate over its own named denominator, with an interval.
This demo (well under a minute) scores six recorded cases, then runs a small policy
assistant for real (docs/demo.md), traces each case and names the stage behind every
failure. Every command it shows, you can run yourself (.venv/bin/assay, or
`source .venv/bin/activate` first).

INTRO
echo "== 1/6  The seed's six cases, scored from recorded outcomes =="
echo "\$ assay score examples/policy/policy.jsonl examples/policy/results.jsonl"
$assay score examples/policy/policy.jsonl examples/policy/results.jsonl
echo
echo "== 2/6  The same dataset plus E7, a case with no recorded output (it stays visible as missing) =="
echo "\$ assay score examples/policy/policy-e7.jsonl examples/policy/results.jsonl"
$assay score examples/policy/policy-e7.jsonl examples/policy/results.jsonl
echo
echo "== 3/6  The policy assistant itself (configuration v1), run for real and traced =="
echo "\$ assay run examples/demo/v1.yaml"
run_output=$($assay run examples/demo/v1.yaml)
echo "$run_output"
run_id=$(echo "$run_output" | head -1 | awk '{print $2}')
echo
echo "== 4/6  Why did E2 fail? Its spans (one per stage), then the diagnosis =="
echo "\$ assay trace $run_id E2"
$assay trace "$run_id" E2
echo
echo "\$ assay diagnose $run_id E2"
$assay diagnose "$run_id" E2
echo
echo "== 5/6  Every failed case, by the stage that caused it =="
echo "\$ assay diagnose $run_id --all"
$assay diagnose "$run_id" --all
echo
echo "== 6/6  The same wrong answer from three different stages: each a configuration, each diagnosed =="
for variant in e2-generation e2-context e2-retrieval; do
  variant_run=$($assay run "examples/demo/$variant.yaml" 2>/dev/null | head -1 | awk '{print $2}')
  stage=$($assay diagnose "$variant_run" E2 | sed -n 2p)
  printf '  %-14s E2 -> %s\n' "$variant" "$stage"
done
echo
# v2 fixes part of v1; stored now so that the comparison below is one command away.
v2_run=$($assay run examples/demo/v2.yaml 2>/dev/null | head -1 | awk '{print $2}')
html=.assay/demo-v1.html
echo "== Where to look next =="
if report_error=$($assay report "$run_id" --format html --output "$html" 2>&1 >/dev/null); then
  echo "The HTML report of the v1 run: $html"
  echo "  open it in a browser: file://$PWD/$html"
else
  echo "(the HTML report could not be written: $report_error)"
fi
echo
echo "Try next:"
next_step() { printf '  %-60s # %s\n' "$1" "$2"; }
next_step "assay compare $run_id $v2_run" "v1 against v2: what v2 fixed, what it broke"
next_step "assay diagnose $run_id T2" "a reply claiming success after a failed tool call"
next_step "assay view" "every stored run in your browser (127.0.0.1:8765)"
next_step "assay init my-eval" "a starter suite for your own application"
cat <<'READ'

Read: docs/demo.md (the assistant), docs/diagnose.md (the rules, E2 walked through),
docs/tracing.md (spans and metrics), docs/index.md (everything else).
READ
