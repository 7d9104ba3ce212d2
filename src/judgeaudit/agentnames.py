"""What an agent name may be, wherever one comes from (a spec, ``import --agent``, a results
file, a pairs file): one rule, so an import never writes a name the audit then refuses.

``~`` is refused because it separates the two agents of a pair id (``a~b``/``c`` and
``a``/``b~c`` would be one pair); the length is capped because names are shown in every report
row; a key pasted as a name is refused without being echoed.
"""

from __future__ import annotations

from judgeaudit.credentials import looks_like_key

MAX_AGENT_NAME = 200


def agent_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an agent (the message never repeats a key), or ``None``."""
    if looks_like_key(name):
        return "looks like an API key, not an agent name (not shown); give the agent's name"
    if len(name) > MAX_AGENT_NAME:
        return f"is {len(name)} characters long; use at most {MAX_AGENT_NAME}"
    if "~" in name:
        return f"{name!r} holds '~', which separates the two agents of a pair id; rename it"
    return None
