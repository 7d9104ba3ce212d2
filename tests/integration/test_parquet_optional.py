"""pyarrow is the ``parquet`` extra: a run without it says the Parquet file was not written and how
to get it; ``judgeaudit export parquet OUT`` writes the same rows the CSV holds."""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

from judgeaudit.cli import main
from tests.integration.test_preferences_input import _audit


def test_run_without_pyarrow_says_so_and_export_parquet_writes_it_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with monkeypatch.context() as hidden:
        hidden.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails, as uninstalled
        out = _audit(tmp_path)
        err = capsys.readouterr().err
        assert not (out / "audit_pairs.parquet").exists()
        assert f"{out / 'audit_pairs.parquet'}: not written" in err
        assert "pip install 'judgeaudit[parquet]'" in err
        # the export writes it all the same: DuckDB writes the Parquet, pyarrow is not needed
        assert main(["export", "parquet", str(out)]) == 0
        assert "pairs of run" in capsys.readouterr().out
    import pyarrow.parquet as pq

    table = pq.read_table(out / "audit_pairs.parquet")
    with (out / "audit_pairs.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert table.num_rows == len(rows) > 0
    assert sorted(table.column("pair_id").to_pylist()) == sorted(r["pair_id"] for r in rows)
    assert table.schema.field("reward_gap").type == "double"
