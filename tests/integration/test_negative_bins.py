"""``report --bins -0.01,0.2,0.5,1``, as ``report --help`` shows the edges, is taken like
``--bins=-0.01,…`` (argparse refused it: "argument --bins: expected one argument")."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.cli import main
from tests.report_fixture import build_audit_db


def test_bins_whose_first_edge_is_negative_need_no_equals_sign(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = build_audit_db(tmp_path / "out")
    edges = "-0.01,0.2,0.5,1"
    assert main(["report", str(out), "--format", "json", "--bins", edges]) == 0
    spaced = capsys.readouterr().out
    assert main(["report", str(out), "--format", "json", f"--bins={edges}"]) == 0
    assert capsys.readouterr().out == spaced
    assert '"bins": [\n    -0.01,\n    0.2,\n    0.5,\n    1.0\n  ]' in spaced
    # an option given no value is still refused
    with pytest.raises(SystemExit) as refused:
        main(["report", str(out), "--bins"])
    assert refused.value.code == 2
    assert "--bins: expected one argument" in capsys.readouterr().err


def test_a_label_preset_that_does_not_fit_the_bins_is_named_as_a_preset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--labels zh` is a set of four names, not a list the user wrote: the refusal says so
    (it said "3 labels needed for 4 bin edges" to a user who gave one word)."""
    out = build_audit_db(tmp_path / "out")
    assert main(["report", str(out), "--bins", "-0.01,0.2,1", "--labels", "zh"]) == 2
    assert capsys.readouterr().err.strip() == (
        "judgeaudit: --labels zh: names 4 buckets, but 3 bin edges make 2; give 2"
        " comma-separated names instead"
    )
    assert main(["report", str(out), "--bins", "-0.01,0.2,1", "--labels", "a,b,c"]) == 2
    assert "--labels: 2 labels needed for 3 bin edges" in capsys.readouterr().err
