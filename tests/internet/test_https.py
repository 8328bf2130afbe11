"""HTTPS: `autohost serve` with a certificate made for a name that is not localhost; Chromium
resolves the name to loopback, ignores the test certificate's issuer, and the player page is
a secure context that gets its microphone and joins the room over HTTPS. And behind a
reverse proxy, only a trusted proxy's forwarded headers are believed."""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import async_playwright
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from plugin.server import listening
from testing import ADMIN_KEY, SECRET, AutohostProcess, free_port
from testing.browser import launch_chromium, wait_for
from testing.certs import self_signed

NAME = "mafia.autohost.test"


@pytest.mark.e2e
@pytest.mark.slow
async def test_the_page_is_a_secure_context_and_gets_its_microphone(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path / "tls", NAME)
    port = free_port()
    base = f"https://{NAME}:{port}"
    server = AutohostProcess(
        [
            "serve",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "log.db"),
            "--no-voice",
            "--tls-cert",
            str(cert),
            "--tls-key",
            str(key),
            "--base-url",
            base,
        ],
        env={"AUTOHOST_SECRET": SECRET, "AUTOHOST_ADMIN_KEY": ADMIN_KEY},
        ready="listening",
    )
    server.start()
    try:
        assert "listening on https://" in server.output[-1]
        trust = ssl.create_default_context(cafile=str(cert))  # the cert names 127.0.0.1 too
        async with httpx.AsyncClient(
            base_url=f"https://127.0.0.1:{port}", verify=trust, timeout=30
        ) as http:
            made = await http.post(
                "/api/tables", json={"seats": 10}, headers={"Authorization": f"Bearer {ADMIN_KEY}"}
            )
            assert made.status_code == 201, made.text
            link = made.json()["seats"][0]["link"]
            async with httpx.AsyncClient(timeout=30) as plain:  # plain HTTP is not served
                with pytest.raises(httpx.TransportError):
                    await plain.get(f"http://127.0.0.1:{port}/healthz")
        assert link.startswith(f"{base}/t/")
        async with async_playwright() as playwright:
            browser = await launch_chromium(
                playwright,
                args=[f"--host-resolver-rules=MAP {NAME} 127.0.0.1", "--ignore-certificate-errors"],
            )
            try:
                page = await browser.new_page()
                await page.goto(link, timeout=30_000)
                assert await page.evaluate("window.isSecureContext") is True
                assert await page.evaluate("location.protocol") == "https:"
                track = await page.evaluate(
                    """navigator.mediaDevices.getUserMedia({audio: true}).then(
                         (s) => s.getAudioTracks()[0].readyState, (e) => e.name)"""
                )
                assert track == "live"
                # The page's own audio connection (wss control socket, /api/ice, /rtc).
                await wait_for(
                    page,
                    "window.__room && window.__room.pc.connectionState === 'connected'",
                    timeout=30_000,
                )
                granted = await page.evaluate(
                    "navigator.permissions.query({name: 'microphone'}).then((p) => p.state)"
                )
                assert granted == "granted"
            finally:
                await browser.close()
    finally:
        assert server.stop(timeout=20) == 0


async def _who(request: Request) -> JSONResponse:
    return JSONResponse({"scheme": request.url.scheme, "client": request.client.host})


@pytest.fixture
async def echo() -> AsyncIterator[Starlette]:
    yield Starlette(routes=[Route("/", _who)])


@pytest.mark.parametrize(
    ("trusted", "expected"),
    [
        ((), {"scheme": "http", "client": "127.0.0.1"}),
        (("127.0.0.1",), {"scheme": "https", "client": "203.0.113.7"}),
        (("10.9.9.9",), {"scheme": "http", "client": "127.0.0.1"}),
    ],
)
async def test_only_a_trusted_proxy_is_believed(
    echo: Starlette, trusted: tuple[str, ...], expected: dict[str, str]
) -> None:
    forwarded = listening(echo, lifespan="off", trusted_proxies=trusted)
    async with forwarded as where, httpx.AsyncClient() as http:
        reply = await http.get(
            where.url, headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}
        )
    assert reply.json() == expected
