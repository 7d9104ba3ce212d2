"""A filled-in review sample read back: its rows (as exported, or as a spreadsheet saved them)
and each row's labels, validated with the file's line named in every refusal. ``review import``
reads through here; :mod:`judgeaudit.analysis.review` writes the samples."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit import csvsafe
from judgeaudit.analysis.frame import AnalysisError
from judgeaudit.audit.store.schema import PREFS
from judgeaudit.audit.units.outcome import label_conflict
from judgeaudit.validate import decode_utf8, read_bytes, refuse_database, shown_name

#: The columns ``review import`` needs.
NEEDED = ("pair_id", "human_success_a", "human_success_b", "human_pref")
#: What a spreadsheet may separate a sample's columns with when it saves it: ';' where the comma
#: is the decimal mark (Excel in much of Europe), a tab (its "Unicode text"). Either is read as
#: the comma is when its header names more of :data:`NEEDED` than the comma's does.
OTHER_DELIMITERS = (";", "\t")
#: human_pref as stored, by its spelling in any case (`a`, `B`, `TIE`...).
_PREFS = {pref.casefold(): pref for pref in PREFS}


def rows_of(text: str) -> csv.DictReader[str]:
    """A sample's rows: comma-separated as exported, or by ';' or a tab when that is what
    separates its header's columns (so a column missing from such a file is named as missing,
    not every column)."""
    first = text.splitlines()[0] if text else ""
    found = {}
    for delimiter in (",", *OTHER_DELIMITERS):
        try:
            found[delimiter] = len(
                set(NEEDED) & set(next(csv.reader([first], delimiter=delimiter), []))
            )
        except csv.Error:  # the comma's reader names it
            break
    best = max(found, key=lambda d: found[d], default=",")  # the comma first among equals
    return csv.DictReader(io.StringIO(text), restval="", delimiter=best)


def cells(row: dict[str, Any]) -> dict[str, Any]:
    """A sample row's cells as written before :func:`judgeaudit.csvsafe.cell` quoted them."""
    return {k: csvsafe.read_cell(v) if isinstance(v, str) else v for k, v in row.items()}


@dataclass(frozen=True)
class Read:
    """A filled-in sample as read: each label with its line, and the rows that hold none,
    counted for `review import`'s summary (they were skipped without a word)."""

    numbered: list[tuple[int, dict[str, Any]]]
    #: rows with no label and no note (a pair not reviewed, or a spreadsheet's empty row)
    blank: int = 0
    #: rows with a note but no label: skipped, since a note alone is not stored
    note_only: int = 0

    def skipped(self) -> str:
        """``; 8 blank rows skipped; 1 row with a note but no label skipped (...)``, or ''."""
        parts = []
        if self.blank:
            parts.append(f"{self.blank} blank row{'' if self.blank == 1 else 's'} skipped")
        if self.note_only:
            rows = f"{self.note_only} row{'' if self.note_only == 1 else 's'}"
            parts.append(
                f"{rows} with a note but no label skipped (a note is stored with a label only)"
            )
        return "".join(f"; {part}" for part in parts)


#: What ``review import`` takes (a database given instead was told "JSONL, JSON or TOML").
FILLED_SAMPLE = "the filled-in review CSV, `review_sample.csv` from `judgeaudit review export`"


def read_labels(path: Path, known: set[str]) -> list[dict[str, Any]]:
    """Validate a filled-in review CSV; every problem names the line and column."""
    return [label for _, label in read_numbered(path, known)]


def read_numbered(path: Path, known: set[str]) -> list[tuple[int, dict[str, Any]]]:
    """:func:`read_labels` with each label's line in the file."""
    return read_sample(path, known).numbered


def read_sample(path: Path, known: set[str]) -> Read:
    """:func:`read_numbered` with the rows that hold no label counted."""
    data = read_bytes(path, "review labels", AnalysisError)
    refuse_database(data, path, AnalysisError, FILLED_SAMPLE)
    if not (text := decode_utf8(data, path, AnalysisError)).strip():
        raise AnalysisError(f"{path} is empty; fill in a sample from `judgeaudit review export`")
    reader = rows_of(text)
    try:
        header = reader.fieldnames or []
    except csv.Error as exc:  # e.g. a header field past the csv module's 128 KB limit
        raise AnalysisError(f"{path}:1: not a readable CSV header ({exc})") from None
    missing = set(NEEDED) - set(header)
    if missing:
        raise AnalysisError(
            f"{path}: missing columns {', '.join(sorted(missing))}; export with `judgeaudit review export`"
        )
    rows, blank, note_only = [], 0, 0
    try:
        for row in map(cells, reader):
            if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
                blank += 1  # a spreadsheet's empty row (`,,,,`): nothing to name
                continue
            label = _label(row, f"{path}:{reader.line_num}", known)
            if label is not None:
                rows.append((reader.line_num, label))
            elif (row.get("note") or "").strip():
                note_only += 1
            else:
                blank += 1
    except csv.Error as exc:
        raise AnalysisError(f"{path}:{reader.line_num}: not a readable CSV row ({exc})") from None
    return Read(rows, blank, note_only)


def _flag(value: str, where: str) -> int | None:
    """A success mark: 0 or 1, as the sample and every message say (yes/true were taken too)."""
    if (value := value.strip()) in ("", "0", "1"):
        return int(value) if value else None
    raise AnalysisError(f"{where}: {shown_name(value)} is not 0/1; leave it empty to skip")


def canonical_pref(value: str) -> str:
    """``value`` as a stored preference spells it when it is one in any case (`a` is `A`), else
    as given: a sample's cell compared with a stored label is no change for its case alone."""
    return _PREFS.get(value.strip().casefold(), value.strip())


def _pref(value: str, where: str) -> str | None:
    """A preference: A, B or tie in any case (a reviewer typing `a` meant A), stored as
    :data:`~judgeaudit.audit.store.schema.PREFS` spells it; empty to skip."""
    if not (value := value.strip()):
        return None
    if (pref := _PREFS.get(value.casefold())) is None:
        raise AnalysisError(
            f"{where}: human_pref: {shown_name(value)} must be A, B or tie (in either case), "
            "or empty"
        )
    return pref


def _label(row: dict[str, Any], where: str, known: set[str]) -> dict[str, Any] | None:
    """One filled-in review row, or None when nothing was labelled on it."""
    pair_id = row["pair_id"].strip()
    if pair_id not in known:
        raise AnalysisError(f"{where}: pair_id: {shown_name(pair_id)} is not in this audit")
    label = {
        "pair_id": pair_id,
        "human_success_a": _flag(row["human_success_a"], f"{where}: human_success_a"),
        "human_success_b": _flag(row["human_success_b"], f"{where}: human_success_b"),
        "human_pref": _pref(row["human_pref"], where),
    }
    if "note" in row:  # a sheet without the column keeps the stored notes (the store's rule)
        label["note"] = (row.get("note") or "").strip() or None
    conflict = label_conflict(
        label["human_success_a"], label["human_success_b"], label["human_pref"]
    )
    if conflict is not None:  # a preference export would train on a side it does not prefer
        raise AnalysisError(
            f"{where}: {conflict}; set human_pref to the side that succeeded, correct the "
            "success marks, or leave human_pref empty"
        )
    if any(label[k] is not None for k in ("human_success_a", "human_success_b", "human_pref")):
        return label
    return None
