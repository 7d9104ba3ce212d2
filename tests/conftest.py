from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import sim_server


@pytest.fixture(scope="session")
def sim_url() -> Iterator[str]:
    with sim_server() as url:
        yield url
