"""Fixtures of the internet tests (helpers live in plugin/testing)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

from plugin.rooms.embedded import loopback_ice as _loopback_ice
from plugin.testing.browser import launch_chromium
from plugin.testing.coturn import Coturn, coturn_missing, running_coturn

TURN_SECRET = "internet-tests-turn-secret"


@pytest.fixture
def loopback_ice() -> Iterator[None]:
    """aiortc (server and test clients) gathers 127.0.0.1 only, for this test."""
    with _loopback_ice():
        yield


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """Debian's Chromium with fake media devices; closed after the test."""
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture
def coturn(tmp_path: Path) -> Iterator[Coturn]:
    """A real coturn on 127.0.0.1 with TURN_SECRET, stopped after the test."""
    missing = coturn_missing()
    if missing:
        pytest.skip(missing)
    with running_coturn(tmp_path / "turn", secret=TURN_SECRET) as turn:
        yield turn
