"""Fixtures for the end-to-end tests: a Chromium browser, and loopback-only ICE."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.async_api import Browser, async_playwright

from plugin.rooms.embedded import loopback_ice as _loopback_ice
from plugin.testing.browser import launch_chromium


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
