#!/usr/bin/env bash
# Everything the test suite needs, then the suite. Called by `make test` and by .ci/run.
# Idempotent: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== lint and types"
.venv/bin/ruff check src tests bench
.venv/bin/ruff format --check src tests bench
.venv/bin/mypy

echo "== tests"
# pytest exits 5 when it collected no tests; that is a failure here, as any non-zero exit is.
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
