#!/usr/bin/env bash
# Runs the SQuAD 2.0 example on the local model: installs it when needed
# (scripts/setup-model.sh), starts llama-cpp-python's server on 127.0.0.1:8765, runs
# examples/squad2/suite.yaml over the 40 cases of subset-ids.txt (--all: all 626) into
# .assay/squad2.db, prints the report and stops the server.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT=8765
STORE="${ASSAY_SQUAD2_STORE:-sqlite:///.assay/squad2.db}"
SELECT=(--ids "$(paste -sd, examples/squad2/subset-ids.txt)")
if [ "${1:-}" = "--all" ]; then
    SELECT=()
fi
MODEL="$(bash scripts/setup-model.sh | tail -n 1)"
mkdir -p .assay
if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1; then
    echo "demo-real: a server already answers on 127.0.0.1:$PORT; using it" >&2
else
    .venv-model/bin/python -m llama_cpp.server --model "$MODEL" \
        --model_alias smollm2-135m-instruct --host 127.0.0.1 --port "$PORT" --n_ctx 4096 \
        >.assay/squad2-server.log 2>&1 &
    SERVER=$!
    trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT
    for _ in $(seq 1 240); do
        curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null 2>&1 && break
        kill -0 "$SERVER" 2>/dev/null || { cat .assay/squad2-server.log >&2; exit 1; }
        sleep 0.5
    done
fi
.venv/bin/assay run examples/squad2/suite.yaml --store "$STORE" ${SELECT[@]+"${SELECT[@]}"}
