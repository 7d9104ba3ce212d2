"""The judge's score scale: one owner, imported by the verdict parser, the input checks, the
report and the CLI's ``--threshold`` (this module imports nothing, so ``--help`` stays light)."""

from __future__ import annotations

#: The judge's score scale, and the score at which a side counts as the judge satisfied (the
#: report's "failed although judge satisfied"; ``report --threshold`` changes it).
SCORE_MAX = 5.0
SATISFIED_AT = 4.0
