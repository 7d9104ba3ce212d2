"""A finished report remembered across processes, for a state of its files no edit can keep.

At 1M pairs a report costs seconds of CPU however fast its engine (issue 23, goal 5:
docs/benchmarks.md), and every ``report``, app visit, ``trend`` period or ``compare`` computed
the same figures again from the same unchanged file. A report is now kept in the user's cache
(``reports/`` beside :mod:`judgeaudit.audit.store.check_memo`'s file; ``JUDGEAUDIT_CACHE_DIR``
empty turns both off, ``JUDGEAUDIT_REPORT_MEMO=0`` this one alone) under a digest of everything it was computed from:

- audit.db's state as the column check keys it (:func:`check_memo.file_state`: device, inode,
  size, mtime, **ctime**, SQLite's change counter and schema cookie, a non-empty WAL), so a hand
  edit, a label import, a resumed run or a restored copy computes again;
- for ``--engine auto``, the same identity and times of the run's ``audit_pairs.parquet``
  (DuckDB reads the pairs there), or its absence;
- every option (run, gap source, bins, labels, threshold, engine, style; not the notes
  callback) and the code: the version and the size and mtime of every module of the package;
- kept when the state did not change while the report was computed. Files written less than
  :data:`check_memo.RACY_NS` before (a run's own closing report, a second report right after
  it) are "racy", as git calls them: a write in the same timestamp tick could keep every field
  of the state. Such a report is kept with a SHA-256 of the files' bytes, taken before and
  after the computation (equal, or it is not kept), and answers a later ``report`` only when
  the bytes hash the same again; once the files have settled, the first answer drops the
  digest (later answers compare the state alone), and so does a computation that outlasts
  the racy window (its after-hash begun with the files settled). So the report a finished run
  computed is the one ``judgeaudit report OUT`` prints right after it, without computing it
  twice.

The notes a report printed (auto's line naming the engine and the Parquet as the command
spelled OUT) are replayed only to a command that spelled OUT the same way; another spelling
computes again and says its own.

A report whose JSON text would not give back the same report (a tuple, a NaN), or that holds
anything :func:`~judgeaudit.credentials.scrub_content` would mask, is not kept: the cache holds
nothing a rendered report would not show. Other engines, ``--parquet`` and histories are not
kept. A garbage, foreign or unwritable cache costs only the computation.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from judgeaudit.audit.store import check_memo
from judgeaudit.audit.store.readonly import latest_run_id

if TYPE_CHECKING:
    from judgeaudit.analysis.report import ReportOptions
    from judgeaudit.analysis.report_types import Report

FOLDER = "reports"
#: ``0`` turns the memo off (the column check's memo stays on; the tests' default).
SWITCH = "JUDGEAUDIT_REPORT_MEMO"
VERSION = 1
#: At most this many kept reports (the least recently written go first).
KEEP = 32
#: A kept report larger than this is not read (nor written).
LIMIT = 32 * 2**20


@dataclass
class Memo:
    """One report's key, the file state it was taken at, and the notes the report printed."""

    folder: Path
    key: str
    state: tuple[object, ...]
    newest_ns: int
    started_ns: int
    files: list[Path]
    #: the files' bytes (:func:`check_memo.content_digest`) before the computation, for a racy state
    content: str | None = None
    notes: list[str] = field(default_factory=list)


@functools.cache
def code_state() -> tuple[object, ...]:
    """The package's version and every module's size and mtime: a changed formula computes
    again (a released wheel changes its version, a working tree its mtimes)."""
    import judgeaudit

    root = Path(judgeaudit.__file__).parent
    parts: list[object] = [judgeaudit.__version__, str(root)]
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        parts.append((str(path.relative_to(root)), st.st_size, st.st_mtime_ns))
    return tuple(parts)


class _Found(NamedTuple):
    state: tuple[object, ...]
    newest_ns: int
    files: list[Path]  # what the state stands for: audit.db, its WAL, the Parquet auto reads


def _state(out: Path, options: ReportOptions) -> _Found | None:
    """What the report of ``out`` is computed from, or None for a report that is not kept
    (another engine, a ``--parquet``, a history)."""
    if options.engine not in ("auto", "sqlite") or options.parquet is not None:
        return None
    path = out / "audit.db" if out.is_dir() else out
    if not path.is_file():
        return None
    files = [path, path.with_name(path.name + "-wal")]
    try:
        state, newest = check_memo.file_state(path)
        parquet: object = None
        if options.engine == "auto":
            from judgeaudit.audit.store.parquet_out import PARQUET

            files.append((out if out.is_dir() else out.parent) / PARQUET)
            try:
                st = os.stat(files[-1])
            except FileNotFoundError:
                pass
            else:
                parquet = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
    except OSError:
        return None
    run_id = options.run_id if options.run_id is not None else latest_run_id(path)
    if run_id is None:
        return None
    # every option but the callback the notes go to (an option added later is in the key too),
    # the run as resolved: "the latest run" and its id are one report (a run's own, kept when
    # it finished, answers a later `report OUT`)
    asked = tuple(
        (f.name, run_id if f.name == "run_id" else getattr(options, f.name))
        for f in fields(options)
        if f.name != "note"
    )
    return _Found((state, parquet, asked, code_state()), newest, files)


def lookup(out: Path, options: ReportOptions) -> tuple[Memo | None, Report | None]:
    """(the memo to keep a computed report in, or None; the kept report, or None)."""
    folder = None if os.environ.get(SWITCH) == "0" else check_memo.cache_dir()
    started = check_memo.now_ns()
    found = None if folder is None else _state(out, options)
    if folder is None or found is None:
        return None, None
    key = check_memo.digest(found.state, f"report memo {VERSION}")
    memo = Memo(folder / FOLDER, key, found.state, found.newest_ns, started, found.files)
    racy = not check_memo.settled(started, found.newest_ns)
    data = _read(memo)
    if data is not None and data["notes"] and data.get("out") != str(out):
        data = None  # its notes name the directory as another command spelled it: say them anew
    kept = None if data is None else data.get("content")
    now = None
    if data is not None and kept is not None:  # kept racy: it answers for these bytes alone
        now = check_memo.content_digest(found.files)
        if now != kept:
            data = None
        elif not racy:  # settled since, and these bytes: the state alone will do from now on
            _write(memo, out, options, data["notes"], data["report"], None)
    if data is None:
        if racy:
            memo.content = now or check_memo.content_digest(found.files)
        return memo, None
    if options.note is not None:
        for note in data["notes"]:
            options.note(f"{note} (remembered from an earlier report of the same files)")
    return memo, cast("Report", data["report"])


def _read(memo: Memo) -> dict[str, Any] | None:
    """The entry kept under ``memo``'s key, or None for none, garbage or another key's."""
    raw = check_memo.read_private(memo.folder / f"{memo.key}.json", LIMIT)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not (
        isinstance(data, dict)
        and data.get("version") == VERSION
        and data.get("key") == memo.key
        and isinstance(data.get("report"), dict)
        and isinstance(data.get("notes"), list)
        and isinstance(data.get("content"), str | None)
    ):
        return None
    return data


def keep(memo: Memo, out: Path, options: ReportOptions, report: Report) -> None:
    """Keep ``report`` under ``memo``'s key if its files are unchanged since the lookup (for
    racy files: their bytes too), and the report survives JSON and the scrubber unchanged;
    never fails."""
    content = None
    if not check_memo.settled(memo.started_ns, memo.newest_ns):
        content = memo.content
        hashed_ns = check_memo.now_ns()
        if content is None or check_memo.content_digest(memo.files) != content:
            return  # unreadable, or written to while the report was computed
        if check_memo.settled(hashed_ns, memo.newest_ns):
            # The bytes held from before the computation to a hash begun after the files
            # settled: any write from then on changes their state, so the state alone will do
            # (the first report after a large run need not hash a GB again).
            content = None
    _write(memo, out, options, memo.notes, report, content)


def _write(
    memo: Memo,
    out: Path,
    options: ReportOptions,
    notes: list[str],
    report: Report | dict[str, Any],
    content: str | None,
) -> None:
    from judgeaudit.credentials import scrub_content

    again = _state(out, options)
    if again is None or again.state != memo.state:
        return  # written to while the report was computed (or its bytes hashed)
    entry = {"version": VERSION, "key": memo.key, "out": str(out), "notes": notes, "report": report}
    if content is not None:
        entry["content"] = content
    try:
        text = json.dumps(entry, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return
    if len(text) > LIMIT or scrub_content(text) != text:
        return
    back: Any = json.loads(text)["report"]
    if back != report:  # a tuple, an int key: the JSON would not give back this report
        return
    check_memo.write_private(memo.folder, f"{memo.key}.json", text)
    _evict(memo.folder)


def _evict(folder: Path) -> None:
    """Keep the :data:`KEEP` most recently written reports."""
    try:
        kept = sorted(
            (entry.stat().st_mtime_ns, entry.path)
            for entry in os.scandir(folder)
            if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False)
        )
        for _, path in kept[:-KEEP]:
            os.unlink(path)
    except OSError:
        return
