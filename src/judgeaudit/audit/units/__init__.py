"""One unit of work: a conversation, a judged pair in both orders, the parsed verdict, the
pair's outcome (misselection, gap) and its usage, with the ids that make resuming safe.
"""

from judgeaudit.audit.units.work import (
    CheckUnit,
    ImportedPair,
    PairUnit,
    TrajectoryUnit,
    Unit,
    pair_units,
    trajectory_units,
)

__all__ = [
    "CheckUnit",
    "ImportedPair",
    "PairUnit",
    "TrajectoryUnit",
    "Unit",
    "pair_units",
    "trajectory_units",
]
