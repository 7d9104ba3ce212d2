"""judgeaudit: audit LLM judges GAUGE-style and switch tool profiles safely."""

__version__ = "0.1.0"
