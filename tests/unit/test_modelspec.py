from __future__ import annotations

import pytest

from judgeaudit.sim.modelspec import ModelSpecError, SimConfig


def test_preset_with_inline_override() -> None:
    spec = SimConfig().resolve("agent-ace:claims=0.9,rate_429=0.2")
    assert spec.kind == "agent"
    assert spec.p("claims") == 0.9 and spec.p("skill") == 0.97
    assert spec.faults["rate_429"] == 0.2


def test_unknown_model_is_generic_chat() -> None:
    assert SimConfig().resolve("gpt-something").kind == "chat"


def test_bad_inline_parameter_names_the_key() -> None:
    with pytest.raises(ModelSpecError, match="unknown parameter 'skil'"):
        SimConfig().resolve("agent:skil=0.5")


def test_config_file_presets_and_faults(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "sim.toml"
    path.write_text(
        'seed = 9\n[faults]\nlatency_ms = 5\n[models.my-agent]\nkind = "agent"\nskill = 0.4\n'
        "[models.my-agent.faults]\nrate_500 = 0.3\n"
    )
    cfg = SimConfig.load(path)
    spec = cfg.resolve("my-agent")
    assert cfg.seed == 9 and spec.p("skill") == 0.4
    assert spec.faults["latency_ms"] == 5 and spec.faults["rate_500"] == 0.3


def test_config_file_bad_kind(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "sim.toml"
    path.write_text('[models.x]\nkind = "robot"\n')
    with pytest.raises(ModelSpecError, match=r"\[models.x\] kind must be one of"):
        SimConfig.load(path)
