"""Which days a series of daily files (or a history's periods) misses: those its own step
expects. A reviewer imported weekly logs with `--period 2026-11-01`, `-08`, `-15`: trend named
twelve "missing" days between them, every one a day no weekly log was meant to cover."""

from __future__ import annotations

from judgeaudit.daily import missing_days


def test_a_daily_series_misses_the_days_between_its_files() -> None:
    assert missing_days(["2026-11-01", "2026-11-02", "2026-11-05"]) == ["2026-11-03", "2026-11-04"]


def test_a_weekly_series_misses_a_week_not_the_days_between() -> None:
    assert missing_days(["2026-11-01", "2026-11-08", "2026-11-15"]) == []
    assert missing_days(["2026-11-01", "2026-11-08", "2026-11-22"]) == ["2026-11-15"]


def test_one_day_or_no_day_misses_nothing() -> None:
    assert missing_days(["2026-11-01"]) == []
    assert missing_days(["2026-W45", "notes"]) == []
