"""What an agent name may be, wherever one comes from (a spec, ``import --agent``, a results
file, a pairs file): one rule, so an import never writes a name the audit then refuses.

``~`` is refused because it separates the two agents of a pair id (``a~b``/``c`` and
``a``/``b~c`` would be one pair). A part between slashes of the form ``t0``, ``t12`` is refused
because ids read it as the trial (:mod:`judgeaudit.audit.units.ids`): task ``x`` with agent
``y/t0/z`` and task ``x/t0/y`` with agent ``z`` would share the pair id ``RUN/x/t0/y/t0/z~B``,
one pair dropped and its run never complete. With no agent part of that form the trial is the
last such part of an id, so different pairs (and trajectories) get different ids, whatever the
task ids hold; ``openai/gpt-4o`` stays a good name. The length is capped because names are
shown in every report row; a key pasted as a name is refused without being echoed.
"""

from __future__ import annotations

import re

from judgeaudit.credentials import looks_like_key

MAX_AGENT_NAME = 200
#: A part of an id that ids read as a trial (``t`` and digits).
TRIAL_PART = re.compile(r"t[0-9]+")


def agent_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an agent (the message never repeats a key), or ``None``."""
    if looks_like_key(name):
        return "looks like an API key, not an agent name (not shown); give the agent's name"
    if len(name) > MAX_AGENT_NAME:
        return f"is {len(name)} characters long; use at most {MAX_AGENT_NAME}"
    if "~" in name:
        return f"{name!r} holds '~', which separates the two agents of a pair id; rename it"
    part = next((p for p in name.split("/") if TRIAL_PART.fullmatch(p)), None)
    if part is not None:
        return (
            f"{name!r} has the part {part!r}, which pair and trajectory ids read as a trial "
            "(two pairs could get one id); rename it"
        )
    return None
