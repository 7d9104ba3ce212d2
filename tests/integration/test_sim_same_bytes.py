"""The embedded provider answers byte for byte what it answered before its per-call CPU was cut.

``tests/fixtures/sim/demo_requests.jsonl`` holds requests ``judgeaudit demo`` sent at 3aa1c43
(user simulator, agents with tools on their first and later turns, the judge), the same judge
transcripts again (a server's second reading, which its caches serve), the judge under two
other presets (one streamed) and the generic chat model on the llm benchmark's prompt, plain
and streamed. ``REPLIES`` are the SHA-256 of each reply body as the server of 3aa1c43 wrote
it, one server for all requests in this order. The fast paths beside this test (the block
finder, the digest, the JSON writers) are each checked against the general path they replace.
"""

from __future__ import annotations

import hashlib
import json
import urllib.request
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from judgeaudit.sim.judge import BLOCK_RE, find_blocks
from judgeaudit.sim.types import _ENCODER, digest, to_json
from judgeaudit.sim.wire import canonical
from tests.helpers import sim_server

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sim" / "demo_requests.jsonl"
REPLIES = [
    "4a2c796760ca85265dce6fcf7e921fccf3945bfe32046dc358f0fed89a4095d1",
    "740b2920f127cf92ea4dc0393c1ecab8706f6bf318233ffae8176efdf09211d6",
    "92257af57850bcc781f0d1b7900954ae7be232ec8c8a505c9161f45a8e692e39",
    "171db3739074e803b30fc241874a902c37eea6d37389b163abbadd672b6b1dbe",
    "39b3e744f9e1d640c27297d1ec35ace76d01993d536437fcefc9e4b7e22111e9",
    "7498c7f6e94019dcb10d432059c59d25cbf7d3806259251835aacfb00e7bdfd5",
    "75564e40329b7b2b667942600143589be87187ed8b186a9decdded1b3708254b",
    "15d49f25fc994b3b2caf6d49799bbc26caf67297c8bf33bdc551df212f652f70",
    "7498c7f6e94019dcb10d432059c59d25cbf7d3806259251835aacfb00e7bdfd5",
    "b907344301f20a0aff6705a7a2e5ff3295684e268841f4b50d5ab302b31ac72a",
    "55f5c55c66e183ecfcda4646dac4fd9884e1c87a681abb29ee5ad4a7fb64b934",
    "8c24be3a32e589e6e1e6d51e1ed1c73da662875286f6660e305bece587f3b87d",
    "8a860ef718c104e862b9f8fda8fae4da03d76b5e4994d43749e15590bbb2253a",
]


def _replies(base_url: str) -> list[str]:
    digests = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        request = urllib.request.Request(
            f"{base_url}/chat/completions",
            data=line.encode(),
            headers={"Content-Type": "application/json", "Authorization": "Bearer t"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            digests.append(hashlib.sha256(response.read()).hexdigest())
    return digests


def test_replies_are_the_bytes_the_provider_wrote_before() -> None:
    with sim_server() as url:
        assert _replies(url) == REPLIES


PIECES = [
    "<trajectory>",
    "</trajectory>",
    "<trajectory_A>",
    "</trajectory_A>",
    "<trajectory_B>",
    "</trajectory_B>",
    "<trajectory_C>",
    "<trajectory",
    "</",
    "_A>",
    ">",
    " ",
    "\n",
    "\x1c",  # whitespace to str.strip and to the regex's \s alike
    "\u3000",
    "user: hi",
    "x",
    "<trajectory_A> user: hi\n </trajectory_A>",  # whole blocks, padded, so many draws hold one
    "<trajectory_B>\u3000agent: ok</trajectory_B>",
    "<trajectory>\n\x1c</trajectory>",
]


@given(st.lists(st.sampled_from(PIECES), max_size=16))
def test_the_block_finder_finds_what_the_regex_finds(pieces: list[str]) -> None:
    prompt = "".join(pieces)
    assert find_blocks(prompt) == dict(BLOCK_RE.findall(prompt))


TEXT = st.text(st.characters(exclude_categories=["Cs"]))  # what UTF-8 can carry
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@given(st.lists(st.one_of(TEXT, st.integers(), JSON), max_size=5))
def test_the_digest_hashes_the_text_the_json_encoder_writes(parts: list[Any]) -> None:
    text = _ENCODER.encode(parts)
    assert digest(*parts) == hashlib.sha256(text.encode("utf-8")).hexdigest()


@given(st.dictionaries(st.sampled_from(["model", "stream", "stream_options", "seed"]), JSON))
def test_the_json_writers_write_what_json_dumps_writes(body: dict[str, Any]) -> None:
    assert to_json(body) == json.dumps(body, ensure_ascii=False)
    kept = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
    assert canonical(body) == json.dumps(kept, sort_keys=True, ensure_ascii=False)
