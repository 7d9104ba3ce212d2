"""A project binding's layer blanks the user file's tiers and cloud switches; with
--keep-conflicts it leaves the layer's own values (the user's) as they are and warns only
about real ones (a review found it wrote blanks over them and warned about its own blanks)."""

from __future__ import annotations

import json
from pathlib import Path

from judgeaudit.profiles.model import Profile
from judgeaudit.profiles.targets import FilePlan, claude


def profile() -> Profile:
    return Profile(name="p", app="claude", base_url="http://127.0.0.1:9/v1", key_env="K")


def env_of(plan: FilePlan) -> dict[str, str]:
    assert plan.after is not None
    env: dict[str, str] = json.loads(plan.after)["env"]
    return env


def test_the_binding_blanks_what_it_does_not_set() -> None:
    plan = claude.plan(Path("/p/.claude/settings.local.json"), None, profile(), {}, lambda _: None,
                       over_user=True)  # fmt: skip
    env = env_of(plan)
    for variable in claude.OVER_USER_BLANKS:
        assert env[variable] == ""
    assert not plan.warnings


def test_keep_conflicts_keeps_the_layers_own_values_and_warns_about_real_ones() -> None:
    own = {"env": {"ANTHROPIC_DEFAULT_OPUS_MODEL": "mine", "CLAUDE_CODE_USE_VERTEX": "1"}}
    raw = (json.dumps(own) + "\n").encode()
    plan = claude.plan(Path("/p/.claude/settings.local.json"), raw, profile(), {}, lambda _: None,
                       keep_conflicts=True, over_user=True)  # fmt: skip
    env = env_of(plan)
    assert env["ANTHROPIC_DEFAULT_OPUS_MODEL"] == "mine" and env["CLAUDE_CODE_USE_VERTEX"] == "1"
    assert env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] == ""  # not the file's: blanked as before
    tier_warnings = [w for w in plan.warnings if "model id" in w]
    assert len(tier_warnings) == 1 and "ANTHROPIC_DEFAULT_OPUS_MODEL = 'mine'" in tier_warnings[0]
