# Two entry points (see README Quickstart): `make demo` and `make test`.
# `make docs` builds the documentation site (docs/, mkdocs.yml) with --strict into site/.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
# uv (from the package index) installs in a fraction of pip's time; pip is the fallback when uv
# cannot be had. `make demo` installs the runtime only; `make test` adds the dev extra.
UV_OFF ?=
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: demo venv-run test lint typecheck docs venv-docs bench screenshots clean venv

# The venv has no pip of its own (creating one with pip takes ~7 s of a newcomer's wait; without,
# 0.3 s): uv goes in with the system pip (`pip --python`, pip >= 22.3), then installs the rest;
# pip installs it all when uv cannot be had, fails, or UV_OFF=1.
# a bare comma inside $(call install,...) would split its argument in two
comma := ,

define install
	@test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	@if [ -z "$(UV_OFF)" ] && { test -x $(BIN)/uv || $(PYTHON) -m pip --python $(BIN)/python install --quiet uv; }; then \
	  echo "installing $(1) with uv"; \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python -e '$(1)' \
	  || { echo "uv failed; installing $(1) with pip"; $(PYTHON) -m pip --python $(BIN)/python install --quiet -e '$(1)'; }; \
	else \
	  echo "installing $(1) with pip"; \
	  $(PYTHON) -m pip --python $(BIN)/python install --quiet -e '$(1)'; \
	fi
endef

# The runtime only: what `make demo` needs.
$(RUN_STAMP): pyproject.toml
	$(call install,.)
	@touch $(RUN_STAMP)

# The test venv gets its bytecode up front (~17 s of CPU, once): uv installs without it, and with
# PYTHONDONTWRITEBYTECODE=1 (set on shared and CI machines) Python never writes it, so every
# process a test starts (the app's run process, each CLI call) compiled its imports from source,
# about twice its CPU (docs/benchmarks.md). `make demo` leaves it to Python's own lazy caching.
$(STAMP): pyproject.toml
	$(call install,.[dev])
	@$(BIN)/python -m compileall -q -j0 $(VENV)/lib src >/dev/null \
	  || echo "compileall: some files did not compile; they compile when imported"
	@touch $(RUN_STAMP) $(STAMP)

venv: $(STAMP)

venv-run: $(RUN_STAMP)

# The docs extra (mkdocs, mkdocs-material) on top of dev; .ci/run installs it so CI builds the docs.
$(DOCS_STAMP): $(STAMP)
	$(call install,.[dev$(comma)docs])
	@touch $(DOCS_STAMP)

venv-docs: $(DOCS_STAMP)

# Each `make demo` runs a fresh audit into out/demo (the docs' examples read it there); the
# previous one is kept as out/demo.previous, so a second `make demo` never just reprints a run.
demo: $(RUN_STAMP)
	@if [ -e out/demo ]; then rm -rf out/demo.previous && mv out/demo out/demo.previous && \
	  echo "make demo: the previous demo run is now out/demo.previous; running a fresh audit"; fi
	$(BIN)/judgeaudit demo --no-tui --events progress --out out/demo

test: $(STAMP)
	bash scripts/test.sh

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
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
	$(BIN)/python bench/engines.py --pairs 1000000
	$(BIN)/python bench/tui_load.py
	$(BIN)/python bench/rate_limited.py
	$(BIN)/python bench/bridge_overhead.py
	$(BIN)/python bench/fresh_demo.py  # git clone + make demo in a temp dir (a minute or two)

screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) out site .pytest_cache
