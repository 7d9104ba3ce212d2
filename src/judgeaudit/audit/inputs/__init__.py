"""Where conversations come from: simulation, imported pairs, recorded verdicts and the
source run of a re-judge, loaded and validated once (:func:`load_inputs`).
"""

from judgeaudit.audit.inputs.load import (
    Inputs,
    load_inputs,
)

__all__ = [
    "Inputs",
    "load_inputs",
]
