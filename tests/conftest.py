from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.helpers import sim_server


@pytest.fixture(scope="session")
def sim_url() -> Iterator[str]:
    with sim_server() as url:
        yield url


@pytest.fixture(params=["sdk", "direct"])
def transport(request: pytest.FixtureRequest) -> str:
    """The llm layer's two transports (the openai SDK, the direct aiohttp path for local
    endpoints): a test that takes this runs on both, proving they behave the same."""
    return str(request.param)


@pytest.fixture
def secret_service() -> None:
    """Tests that need the real Secret Service run inside scripts/with-keyring.sh."""
    if not os.environ.get("JUDGEAUDIT_SECRET_SERVICE"):
        if os.environ.get("CI"):
            pytest.fail("CI must run the suite through scripts/with-keyring.sh (Secret Service)")
        pytest.skip("needs scripts/with-keyring.sh (a private D-Bus session with gnome-keyring)")
