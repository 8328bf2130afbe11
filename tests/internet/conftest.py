"""Fixtures of the internet tests (helpers live in testing; `browser` and
`loopback_ice` in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.coturn import Coturn, coturn_missing, running_coturn

TURN_SECRET = "internet-tests-turn-secret"


@pytest.fixture
def coturn(tmp_path: Path) -> Iterator[Coturn]:
    """A real coturn on 127.0.0.1 with TURN_SECRET, stopped after the test."""
    missing = coturn_missing()
    if missing:
        pytest.skip(missing)
    with running_coturn(tmp_path / "turn", secret=TURN_SECRET) as turn:
        yield turn
