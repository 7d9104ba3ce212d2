"""Where conversations come from: simulation, imported pairs, recorded verdicts and the
source run of a re-judge, loaded and validated once (:func:`load_inputs`).
"""

from judgeaudit.audit.inputs.load import (
    Inputs,
    load_inputs,
)
from judgeaudit.audit.inputs.rejudge import load_spec, source_of

__all__ = [
    "Inputs",
    "load_inputs",
    "load_spec",
    "source_of",
]
