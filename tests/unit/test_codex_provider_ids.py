"""One Codex provider id per gateway (docs/profiles.md): Codex files sessions under the id and
`codex resume` offers (and then sends to the gateway in use) the sessions of the current one.
The id was the host's first label, so distinct gateways shared one (a new user's trial)."""

from __future__ import annotations

import pytest

from judgeaudit.profiles.targets.codex import default_provider_id


@pytest.mark.parametrize(
    ("url", "ident"),
    [
        ("https://taotoken.net/v1", "taotoken"),  # as before
        ("https://api.deepseek.com/v1", "deepseek"),
        ("https://api.moonshot.cn/v1", "moonshot"),
        ("https://api.openai.com/v1", "openai-api"),  # a built-in id gets -api
        ("http://127.0.0.1:8765/v1", "local-8765"),
        ("https://gw.corp-a.com/v1", "gw-corp-a"),  # these shared "gw"
        ("https://gw.corp-b.com/v1", "gw-corp-b"),
        ("https://deepseek.evil.example/v1", "deepseek-evil"),  # shared "deepseek"
        ("https://x.openai.azure.com/openai", "x-openai-azure"),
        ("http://10.0.0.5/v1", "10-0-0-5"),  # these shared "10"
        ("http://10.9.9.9/v1", "10-9-9-9"),
        ("http://10.0.0.5:9000/v1", "10-0-0-5-9000"),  # one host, another port
        ("https://gw.corp-a.com:8443/v1", "gw-corp-a-8443"),
    ],
)
def test_each_gateway_gets_its_own_id(url: str, ident: str) -> None:
    assert default_provider_id(url) == ident
