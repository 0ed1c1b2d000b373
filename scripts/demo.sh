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
echo
echo "== The policy assistant itself (configuration v1), run for real and traced =="
echo "\$ assay run examples/demo/v1.yaml"
run_output=$($assay run examples/demo/v1.yaml)
echo "$run_output"
run_id=$(echo "$run_output" | head -1 | awk '{print $2}')
echo
echo "== Why did E2 fail? Its spans, then the diagnosis =="
echo "\$ assay trace $run_id E2"
$assay trace "$run_id" E2
echo
echo "\$ assay diagnose $run_id E2"
$assay diagnose "$run_id" E2
echo
echo "== Every failed case, by the stage that caused it =="
echo "\$ assay diagnose $run_id --all"
$assay diagnose "$run_id" --all
echo
echo "== The three ways E2 can fail, each a configuration, each diagnosed =="
for variant in e2-generation e2-context e2-retrieval; do
  variant_run=$($assay run "examples/demo/$variant.yaml" 2>/dev/null | head -1 | awk '{print $2}')
  stage=$($assay diagnose "$variant_run" E2 | sed -n 2p)
  echo "$variant: $stage"
done
echo
html=.assay/demo-v1.html
if $assay report "$run_id" --format html --output "$html" 2>/dev/null; then
  echo "== The HTML report of the v1 run: $html =="
fi
