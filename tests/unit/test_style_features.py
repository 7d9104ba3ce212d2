"""Trajectory features from transcripts (English, Chinese, a spec's lexicon file) and the
spec key that names the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judgeaudit.analysis.features import features
from judgeaudit.audit.spec import SpecError, parse_spec, read_spec
from judgeaudit.audit.spec.lexicon import lexicon
from tests.audit_helpers import write_spec

EN: list[dict[str, Any]] = [
    {"role": "user", "content": "Please refund SKU-104 in order O-1007."},
    {
        "role": "agent",
        "content": "Thank you! To confirm: refund SKU-104 in O-1007. Shall I proceed?",
    },
    {"role": "user", "content": "Yes."},
    {"role": "tool_call", "name": "refund_item", "arguments": {"order_id": "O-1007"}},
    {"role": "tool_result", "name": "refund_item", "result": {"ok": True}},
    {"role": "agent", "content": "Happy to help: the refund has been issued. Thank you!"},
]
ZH: list[dict[str, Any]] = [
    {"role": "user", "content": "请为订单 O-1007 中的商品 SKU-104 办理退款。"},
    {"role": "agent", "content": "感谢您的耐心等待！确认一下：我将办理退款。是否继续？"},
    {"role": "user", "content": "好的，请继续。"},
    {"role": "agent", "content": "非常抱歉让您久等，退款已办理，很乐意为您服务。"},
]


def test_english_features_count_what_the_agent_said() -> None:
    f = features(EN, success=False, lex=lexicon())
    said = "Thank you! To confirm: refund SKU-104 in O-1007. Shall I proceed?"
    said2 = "Happy to help: the refund has been issued. Thank you!"
    assert f.length == len(said) + len(said2)
    assert (f.turns, f.tool_calls) == (2, 1)
    assert (f.claimed_done, f.claimed_but_failed) == (1, 1)
    assert f.courtesy == 3  # "thank you" twice, "happy to" once
    assert (f.asks_confirmation, f.cites_ids) == (1, 1)
    assert features(EN, success=True, lex=lexicon()).claimed_but_failed == 0


def test_a_failure_report_is_not_a_claim() -> None:
    events = [{"role": "agent", "content": "Sorry, I was unable to complete this: done?"}]
    assert features(events, success=False, lex=lexicon()).claimed_done == 0


def test_a_chinese_transcript_gets_courtesy_and_claim_markers_from_the_chinese_lexicon() -> None:
    f = features(ZH, success=False, lex=lexicon())
    assert f.claimed_done == 1 and f.claimed_but_failed == 1  # 已办理
    assert f.courtesy == 4  # 感谢, 抱歉, 很乐意, 为您服务
    assert f.asks_confirmation == 1  # 是否继续
    assert f.length == sum(len(e["content"]) for e in ZH if e["role"] == "agent")


def test_a_spec_lexicon_adds_markers_and_changes_the_spec_hash(tmp_path: Path) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    plain = parse_spec(read_spec(spec), spec)
    assert plain.lexicon is None
    (tmp_path / "words.toml").write_text('claim = ["sorted out"]\ncourtesy = ["cheers"]\n')
    text = spec.read_text().replace("[run]\n", '[run]\nlexicon = "words.toml"\n', 1)
    spec.write_text(text)
    named = parse_spec(read_spec(spec), spec)
    assert named.lexicon == {"claim": ["sorted out"], "courtesy": ["cheers"]}
    assert named.spec_hash() != plain.spec_hash()
    events = [{"role": "agent", "content": "Cheers, it is sorted out."}]
    assert features(events, success=True, lex=lexicon()).claimed_done == 0
    f = features(events, success=True, lex=lexicon(named.lexicon))
    assert (f.claimed_done, f.courtesy) == (1, 1)


def test_an_unset_lexicon_leaves_the_demo_run_id_as_docs_recorded_it() -> None:
    """docs/audit.md shows the demo's run id from before the key existed."""
    demo = Path(__file__).resolve().parents[2] / "examples" / "demo.toml"
    assert parse_spec(read_spec(demo), demo).spec_hash().startswith("efb60a37")


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('claims = ["x"]\n', "unknown key 'claims'"),
        ("claim = [1]\n", "claim: must be a list of non-empty strings"),
        ('ids = ["(unclosed"]\n', "is not a regular expression"),
    ],
)
def test_a_bad_lexicon_file_is_refused_in_one_line(tmp_path: Path, body: str, says: str) -> None:
    spec = write_spec(tmp_path / "spec.toml")
    (tmp_path / "words.toml").write_text(body)
    spec.write_text(spec.read_text().replace("[run]\n", '[run]\nlexicon = "words.toml"\n', 1))
    with pytest.raises(SpecError) as caught:
        parse_spec(read_spec(spec), spec)
    message = str(caught.value)
    assert "run.lexicon" in message and "words.toml" in message and says in message
    assert "\n" not in message
