"""Parsing a spec never opens another run: the re-judge source is bound by the inputs loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.audit.inputs import load_spec, source_of
from judgeaudit.audit.spec import RunSpec, SpecError, parse_spec

RAW = {
    "run": {"name": "rj", "trajectories_from": "no-such-dir"},
    "endpoints": {"judge": {"base_url": "embedded"}},
    "judge": {"model": "judge-default", "endpoint": "judge"},
}


def test_parse_spec_only_parses(tmp_path: Path) -> None:
    spec = parse_spec(RAW, tmp_path / "spec.toml")
    assert isinstance(spec, RunSpec)
    assert spec.trajectories_from == "no-such-dir"
    assert spec.source_key is None  # a key, set only when a loader binds the source
    assert "source" not in RunSpec.__dataclass_fields__  # the spec holds no run handle


def test_loader_binds_and_names_the_missing_source(tmp_path: Path) -> None:
    path = tmp_path / "spec.toml"
    path.write_text(
        '[run]\nname = "rj"\ntrajectories_from = "no-such-dir"\n'
        '[endpoints.judge]\nbase_url = "embedded"\n'
        '[judge]\nmodel = "judge-default"\nendpoint = "judge"\n',
        encoding="utf-8",
    )
    with pytest.raises(SpecError, match="no-such-dir"):
        load_spec(path)
    with pytest.raises(SpecError, match="no-such-dir"):
        source_of(parse_spec(RAW, path))
