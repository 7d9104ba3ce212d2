"""The one rule for taking only the credential lines out of ``ANTHROPIC_CUSTOM_HEADERS``
(``customheaders.leave``) and putting them back (``rejoin``), on the value's JSON text: what
stays keeps its lines byte for byte and in order, what comes back at ``off`` is the value byte
for byte, and a user's edit made while switched is kept with the taken lines put back."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from judgeaudit.profiles.targets import customheaders as ch

KEYLIKE = "sk-" + "q7W2e9R4t6" * 2
PLAIN = [("anthropic-beta", "fine-grained-tool-streaming-2025-05-14"), ("X-Org", "acme"),
         ("X-Team", "café ünïcode ✓"), ("x-org", "acme"), ("X-Quote", 'say "hi" \\ ok')]  # fmt: skip
SECRET = [("Authorization", "Bearer short1"), ("x-gateway-key", "abc"), ("X-Org", KEYLIKE),
          ("Cookie", "sid=1")]  # fmt: skip


def value_of(headers: list[tuple[str, str]], sep: str, trailing: bool) -> str:
    text = sep.join(f"{name}: {value}" for name, value in headers)
    return text + sep if trailing and headers else text


def texts(raw: str | None) -> list[str]:
    return [line.text for line in ch.lines(raw or '""') or []]


def test_only_the_credential_lines_leave_each_kept_line_as_it_was() -> None:
    raw = json.dumps(
        "anthropic-beta: b-2025-05-14\r\nAuthorization: Bearer x\r\nX-Org: caf\u00e9\r\n"
    )
    left = ch.leave(raw)
    assert left == '"anthropic-beta: b-2025-05-14\\r\\nX-Org: caf\\u00e9\\r\\n"'  # escapes kept
    assert ch.rejoin(raw, left) == raw  # `off`: the whole value back, byte for byte
    assert ch.said(raw) == "Authorization"


def test_all_credentials_go_whole_and_none_stays_untouched() -> None:
    assert ch.leave(json.dumps("Authorization: Bearer x\nx-api-key: y")) is None
    plain = json.dumps("anthropic-beta: a\nX-Org: acme")
    assert ch.leave(plain) == plain


def test_no_last_newline_stays_none() -> None:
    assert ch.leave(json.dumps("X-Org: acme\nAuthorization: Bearer x")) == '"X-Org: acme"'


def test_a_line_another_reader_splits_is_judged_by_its_pieces() -> None:
    raw = json.dumps("X-Org: acme\u2028Authorization: Bearer x\nX-Team: t")
    assert texts(ch.leave(raw)) == ["X-Team: t"]


def test_an_edit_while_switched_is_kept_with_the_credentials_in_front() -> None:
    raw = json.dumps("X-Org: acme\nAuthorization: Bearer x\n")
    edited = json.dumps("X-Org: acme\nX-Trace: on\n")
    joined = ch.rejoin(raw, edited)
    assert json.loads(joined) == "Authorization: Bearer x\nX-Org: acme\nX-Trace: on\n"
    assert ch.leave(joined) == edited  # switched again: the edit stays live as typed
    again = json.dumps("Authorization: Bearer x\nX-Trace: on")  # they put it back themselves
    assert json.loads(ch.rejoin(raw, again)) == "Authorization: Bearer x\nX-Trace: on"
    assert json.loads(ch.rejoin(raw, None)) == "Authorization: Bearer x"  # removed: key back


headers = st.lists(st.sampled_from(PLAIN + SECRET), max_size=6)


@given(headers, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_round_trip_over_generated_header_lists(
    found: list[tuple[str, str]], sep: str, trailing: bool, ascii_only: bool
) -> None:
    raw = json.dumps(value_of(found, sep, trailing), ensure_ascii=ascii_only)
    left = ch.leave(raw)
    kept = [h for h in found if h not in SECRET]
    if not any(h in SECRET for h in found):
        assert left == raw  # nothing to move: untouched
        return
    if not kept:
        assert left is None  # all credentials: the value moves whole
        return
    assert left is not None
    assert texts(left) == [*(f"{n}: {v}" for n, v in kept), *([""] if trailing else [])]
    pieces = [line.raw for line in ch.lines(raw) or []]
    assert all(line.raw in pieces for line in ch.lines(left) or [])  # each line's own bytes
    assert not ch.credential_headers(json.loads(left))
    assert ch.rejoin(raw, left) == raw
    extra = json.dumps(value_of([*kept, ("X-New", "1")], sep, trailing), ensure_ascii=ascii_only)
    joined = ch.rejoin(raw, extra)
    assert ch.leave(joined) == extra  # the edit survives a later switch and `off` alike
    # every credential line comes back, duplicates too, in their order
    assert ch.credential_headers(json.loads(joined)) == [h for h in found if h in SECRET]


@given(headers, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_a_backup_masks_only_the_credential_lines_and_unmasks_byte_for_byte(
    found: list[tuple[str, str]], sep: str, trailing: bool, ascii_only: bool
) -> None:
    raw = json.dumps(value_of(found, sep, trailing), ensure_ascii=ascii_only)
    masked, originals = ch.mask_credentials(raw, lambda line: f"MARK-{len(line)}")
    shown = json.loads(masked)
    assert KEYLIKE not in shown and "short1" not in shown and "sid=1" not in shown
    assert [t for t in texts(masked) if t and "MARK-" not in t] == [
        f"{n}: {v}" for n, v in found if (n, v) not in SECRET
    ]  # the other lines readable, in order
    assert ch.unmask(masked, originals) == raw
