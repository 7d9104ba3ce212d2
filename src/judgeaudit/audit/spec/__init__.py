"""What to run: the run spec, its limits, the judge/agent prompt templates, the endpoints a run
calls and the manifest that records them. Parsing a spec never opens another run (the
re-judge source is bound by :mod:`judgeaudit.audit.inputs`).
"""

from judgeaudit.audit.spec.records import (
    EMBEDDED,
    GAP_SOURCES,
    JUDGE_VIEWS,
    RATE_KEYS,
    SPEED_KEYS,
    TEMPLATE_ROLES,
    UNSET_NOT_HASHED,
    Endpoint,
    ModelRef,
    RunSpec,
    SpecError,
)
from judgeaudit.audit.spec.runspec import BindSource, parse_spec, read_spec

__all__ = [
    "EMBEDDED",
    "GAP_SOURCES",
    "JUDGE_VIEWS",
    "RATE_KEYS",
    "SPEED_KEYS",
    "TEMPLATE_ROLES",
    "UNSET_NOT_HASHED",
    "BindSource",
    "Endpoint",
    "ModelRef",
    "RunSpec",
    "SpecError",
    "parse_spec",
    "read_spec",
]
