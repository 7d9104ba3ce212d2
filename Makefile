# Two entry points (see README Quickstart): `make demo` and `make test`.
# `make docs` builds the documentation site (docs/, mkdocs.yml) with --strict into site/.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: demo test lint typecheck docs venv-docs bench screenshots clean venv

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# The docs extra (mkdocs, mkdocs-material) on top of dev; .ci/run installs it so CI builds the docs.
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,docs]'
	@touch $(DOCS_STAMP)

venv-docs: $(DOCS_STAMP)

demo: $(STAMP)
	$(BIN)/judgeaudit demo --no-tui --events progress --out out/demo

test: $(STAMP)
	bash scripts/test.sh

lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(STAMP)  # the quick ones; bench/recorded_scale.py --pairs 5000000 takes about an hour
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/llm_throughput.py
	$(BIN)/python bench/audit_throughput.py
	$(BIN)/python bench/report_scale.py
	$(BIN)/python bench/tui_load.py
	$(BIN)/python bench/rate_limited.py
	$(BIN)/python bench/bridge_overhead.py

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) out site .pytest_cache
