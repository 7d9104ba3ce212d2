"""Keys are masked once, where the CLI prints: a key pasted into the wrong argument of any
command (not only ``profile``/``key``) never comes back on stderr, nor in a crash log."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.cli.scrubbed import ScrubbedStream, shown
from tests.cli_helpers import cli

# Built at run time and broken by hyphens: it looks like a key to the scrubber, not to a scanner.
KEY = "-".join(["sk", "fake", "0123456789", "abcdefghij", "KLMN"])


def test_a_key_given_as_the_output_directory_is_masked_in_the_error(tmp_path: Path) -> None:
    done = cli("report", KEY, cwd=tmp_path)
    assert done.returncode == 2
    assert "no audit database" in done.stderr
    assert KEY not in done.stderr and "…KLMN" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_key_in_an_unexpected_argument_is_masked_in_the_parser_error(tmp_path: Path) -> None:
    done = cli("run", "spec.toml", "--api-key", KEY, cwd=tmp_path)
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr
    assert KEY not in done.stderr


def test_a_key_quoted_by_an_unexpected_error_never_reaches_the_crash_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_LOG_DIR", str(tmp_path / "logs"))

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError(f"gateway said: invalid key {KEY}")

    monkeypatch.setattr("judgeaudit.analysis.report.build_report", broken)  # imported on use
    (tmp_path / "o").mkdir()
    assert main(["report", str(tmp_path / "o")]) == 70
    assert KEY not in capsys.readouterr().err
    (log,) = (tmp_path / "logs").glob("crash-*.log")
    text = log.read_text()
    assert "Traceback" in text and "invalid key …KLMN" in text and KEY not in text


def test_the_stream_masks_what_is_written_and_leaves_other_text_alone() -> None:
    raw = io.StringIO()
    stream = ScrubbedStream(raw)
    stream.write(f"warning: {KEY} kept in /home/u/.claude/settings.json\n")
    stream.write("seed 3/10: out/demo (42 pairs)\n")
    assert raw.getvalue() == (
        "warning: …KLMN kept in /home/u/.claude/settings.json\nseed 3/10: out/demo (42 pairs)\n"
    )
    assert shown("http://user:pw@host/v1") == "http://***@host/v1"
