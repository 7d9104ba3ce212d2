"""Reading a TOML file with one-line errors that name the file (specs, profiles, sim configs).

Kept as the import path the profile code uses; the checks themselves (strict UTF-8, nan/inf)
live in :mod:`judgeaudit.validate` so every input file gets the same answers.
"""

from __future__ import annotations

from judgeaudit.validate import read_toml

__all__ = ["read_toml"]
