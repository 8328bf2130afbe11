"""Fixtures for the LiveKit tests: the contract server and the real LiveKit server.

The real server's fixtures live in harness.py so that tests/e2e can import them too.
"""

from __future__ import annotations

import pytest

from tests.livekit.contract_server import ContractServer
from tests.livekit.harness import API_KEY, API_SECRET, livekit_server  # noqa: F401


@pytest.fixture
async def contract():
    server = ContractServer(API_KEY, API_SECRET)
    await server.start()
    yield server
    await server.stop()
