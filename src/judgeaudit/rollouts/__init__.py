"""Importers for rollouts that already exist: τ-bench, τ²-bench, OpenAI-format JSONL, recorded
judge verdicts. Each reads its format, validates it with one-line errors, and writes the
documented imported-pairs JSONL that ``run.imported`` audits."""
