"""Hypothesis values for the tests that hold a hand-built JSON text to ``json.dumps`` (the
recorded import's joined and canonical texts): any JSON scalar Python round-trips, and the
compact encoding the import writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)


def compact(value: Any) -> str:
    """``value`` as the import encodes a line: no spaces, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
