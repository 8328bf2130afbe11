"""Fixtures for the LiveKit tests: the contract server (testing/livekit_contract.py).

The real LiveKit server's fixture is in tests/conftest.py, so that tests/e2e has it too.
"""

from __future__ import annotations

import pytest

from testing.livekit_contract import ContractServer
from testing.livekit_server import API_KEY, API_SECRET


@pytest.fixture
async def contract():
    server = ContractServer(API_KEY, API_SECRET)
    await server.start()
    yield server
    await server.stop()
