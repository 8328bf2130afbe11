"""Fixtures for more than one test directory (helpers live in testing)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from playwright.async_api import Browser, async_playwright

from plugin.rooms.embedded import loopback_ice as _loopback_ice
from testing.browser import launch_chromium
from testing.livekit_server import LiveKitServer, running_server, server_binary
from testing.recogniser import Recogniser, recogniser
from testing.recogniser import missing as recogniser_missing


@pytest.fixture
def loopback_ice() -> Iterator[None]:
    """aiortc (server and test clients) gathers 127.0.0.1 only, for this test."""
    with _loopback_ice():
        yield


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """Debian's Chromium with fake media devices; closed after the test (tests/e2e,
    tests/internet, and any browser test)."""
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture(scope="session")
def livekit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKitServer]:
    """The real LiveKit server (tests/livekit, tests/e2e); skipped when its binary is missing."""
    binary = server_binary()
    if binary is None:
        pytest.skip(
            "livekit-server binary missing: run scripts/test (setup builds it with "
            "`go install github.com/livekit/livekit-server/cmd/server@v1.13.5`) or set "
            "LIVEKIT_SERVER_BIN"
        )
    with running_server(binary, tmp_path_factory.mktemp("livekit")) as server:
        yield server


@pytest.fixture(scope="session")
def hearer() -> Recogniser:
    """The offline recogniser that judges the voice (Whisper base, the `speech` extra:
    tests/voice/test_intelligibility_*.py, tests/*/test_hearing.py); skipped, saying how to
    install it, where it is missing."""
    why = recogniser_missing()
    if why is not None:
        pytest.skip(why)
    return recogniser()


@pytest.fixture(scope="session")
def default_voice_rhvoice() -> None:
    """Skip unless RHVoice loads here (the default voice the intelligibility promise is
    about; without it the host falls back to espeak-ng, which is not understood)."""
    from voice.synth import rhvoice_engine

    engine = rhvoice_engine()
    if isinstance(engine, Exception):
        pytest.skip(str(engine))
