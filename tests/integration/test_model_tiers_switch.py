"""Model tiers across switches: a profile that sets tiers owns them; the next profile without
them removes them (never "puts back" the previous provider's ids); `off` gives the user's file
back byte for byte, the hand-set or CC Switch tiers included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("secret_service")
TIERS = ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
         "ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_SMALL_FAST_MODEL")  # fmt: skip


def test_tiers_follow_the_switch_and_off_gives_the_file_back(tmp_path: Path) -> None:
    for name in ("cfg", "claude"):
        (tmp_path / name).mkdir()
    env = {
        **os.environ,
        "JUDGEAUDIT_CONFIG_DIR": str(tmp_path / "cfg"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
    }

    def ja(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-m", "judgeaudit", *args], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    settings = tmp_path / "claude" / "settings.json"
    # What a CC Switch Kimi preset leaves, with a hand-set opus tier and a comment-free layout.
    settings.write_text(
        '{\n  "env": {\n    "ANTHROPIC_BASE_URL": "https://api.moonshot.cn/anthropic",\n'
        '    "ANTHROPIC_DEFAULT_HAIKU_MODEL": "kimi-k2-turbo-preview",\n'
        '    "ANTHROPIC_DEFAULT_OPUS_MODEL": "my-own-opus"\n  },\n  "theme": "dark"\n}\n'
    )
    original = settings.read_bytes()
    ja("profile", "add", "ds", "--app", "claude", "--base-url", "https://api.deepseek.com/anthropic",
       "--model", "deepseek-chat", "--key", "k-ds",
       "--option", "default_haiku_model=deepseek-chat", "--option", "small_fast_model=deepseek-chat")  # fmt: skip
    ja("profile", "add", "local", "--app", "claude", "--base-url", "http://127.0.0.1:4000",
       "--model", "qwen3-coder", "--key", "k-local")  # fmt: skip

    preview = ja("profile", "use", "ds", "--dry-run").stdout
    assert (
        'replaces your value env.ANTHROPIC_DEFAULT_HAIKU_MODEL = "kimi-k2-turbo-preview"' in preview
    )
    assert 'removes env.ANTHROPIC_DEFAULT_OPUS_MODEL = "my-own-opus"' in preview
    ja("profile", "use", "ds")
    env_ = json.loads(settings.read_text())["env"]
    assert (
        env_["ANTHROPIC_DEFAULT_HAIKU_MODEL"]
        == env_["ANTHROPIC_SMALL_FAST_MODEL"]
        == "deepseek-chat"
    )
    assert "ANTHROPIC_DEFAULT_OPUS_MODEL" not in env_

    preview = ja("profile", "use", "local", "--dry-run").stdout
    assert "ANTHROPIC_DEFAULT_HAIKU_MODEL" in preview and "deepseek-chat" in preview
    ja("profile", "use", "local")
    env_ = json.loads(settings.read_text())["env"]
    assert not [t for t in TIERS if t in env_], env_  # neither DeepSeek's nor Kimi's ids
    assert env_["ANTHROPIC_MODEL"] == "qwen3-coder"

    ja("profile", "use", "ds")
    ja("profile", "use", "local")
    ja("profile", "off", "claude")
    assert settings.read_bytes() == original
