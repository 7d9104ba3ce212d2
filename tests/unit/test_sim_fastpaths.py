"""The embedded provider's per-call shortcuts give the same answers as the general paths."""

from __future__ import annotations

from judgeaudit.sim.engine import simulate
from judgeaudit.sim.faults import Decision
from judgeaudit.sim.modelspec import SimConfig
from judgeaudit.sim.server import SimServer
from judgeaudit.sim.types import Message, SimRequest, approx_tokens


def test_token_estimate_is_a_quarter_of_ascii_and_one_per_cjk_character() -> None:
    assert approx_tokens("") == 1
    assert approx_tokens("abcd") == 1
    assert approx_tokens("abcde") == 2
    assert approx_tokens("x" * 4000) == 1000
    assert approx_tokens("退款金额") == 4
    assert approx_tokens("退款 refund") == 2 + (len(" refund") + 3) // 4
    assert approx_tokens("café") == 1  # not ASCII, no CJK: the general path


def test_chat_model_echoes_the_last_plain_line_of_a_long_prompt() -> None:
    config = SimConfig()
    prompt = "<task>Refund</task>\n  first line  \n\n<trajectory_A>\n  the last one  \n</x>\n\n"
    request = SimRequest("chat", [Message("user", prompt)])
    reply = simulate(config, config.resolve("chat"), request)
    assert reply.text.endswith("You said: the last one")
    only_markup = SimRequest("chat", [Message("user", "<a>\n<b>")])
    assert simulate(config, config.resolve("chat"), only_markup).text.endswith("You said: ")


def test_a_model_without_chance_skips_the_draw_and_one_with_faults_still_draws() -> None:
    server = SimServer(SimConfig())
    steady = server._spec("chat:latency_ms=20")
    assert server._decide(steady, steady.model_id, "{}") == Decision(0.02, None)
    assert not server.faults.attempts  # no request hashed, no attempt counted
    flaky = server._spec("chat:rate_500=1")
    assert server._decide(flaky, flaky.model_id, "{}").fault == "500"
    assert sum(server.faults.attempts.values()) == 1
    jittery = server._spec("chat:jitter_ms=10")
    assert 0 <= server._decide(jittery, jittery.model_id, "{}").delay_s <= 0.01
    assert sum(server.faults.attempts.values()) == 2


def test_chat_model_answers_the_user_not_claude_codes_injected_reminders() -> None:
    """A new user: the sim's reply to Claude Code echoed "Today's date is ..." (a reminder
    Claude Code adds to the user's message), not what the user typed. As Claude Code 2.1.332
    sends it (text blocks joined), reminders before and after the user's words."""
    config = SimConfig()
    before = (
        "<system-reminder>\nContents of /p/CLAUDE.md:\n\nBe nice.\n</system-reminder>"
        "<system-reminder>\n# currentDate\nToday's date is 2026-12-06.\n</system-reminder>\n"
    )
    after = (
        "<system-reminder>\nThe date has changed. Today's date is now 2026-12-07. No need to "
        "announce the new date.\n</system-reminder>"
    )
    for text in (before + "what is two plus two", "what is two plus two" + after):
        request = SimRequest("chat", [Message("user", text)])
        reply = simulate(config, config.resolve("chat"), request)
        assert reply.text.endswith("You said: what is two plus two"), reply.text
    # a CLAUDE.md in Chinese inside a reminder: the reply's language is still the user's
    chinese = "<system-reminder>\nContents of /p/CLAUDE.md:\n\n请用中文。\n</system-reminder>"
    request = SimRequest("chat", [Message("user", chinese + "hello, what is 2+2?")])
    said = simulate(config, config.resolve("chat"), request).text
    plain = simulate(config, config.resolve("chat"), SimRequest("chat", [Message("user", "hello, what is 2+2?")])).text  # fmt: skip
    assert said == plain and not any("\u4e00" <= ch <= "\u9fff" for ch in said), said
