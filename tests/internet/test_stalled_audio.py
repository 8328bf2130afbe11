"""A page whose audio connection stays "disconnected" while the server answers rejoins
(issue 32). After a cut of a player's line, one time in ten or twenty the home's NAT gave
the page another public port and the old connection never recovered; the page waited 7-11 s
for it to fail. Here the same dead path is made on purpose: in the server's namespace the
UDP port of the page's connection is closed, while HTTP (the page's socket, /healthz) goes
on. The page must rejoin on a new connection (a new port) long before Chromium would
declare the old one failed."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, async_playwright

from testing.browser import launch_chromium
from testing.media_pages import (
    console_in,
    create_speech_table,
    link_of,
    mark_connection,
    open_seat,
    server_in_namespace,
    wait_audio_back,
)
from testing.netns import Internet, inside, internet, netns_missing

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PORT = 8000  # inside the public namespace: nothing else is there
# Chromium declares a dead connection "disconnected" after about 5 s and "failed" after
# about 30 s; the page's probe rejoins within a second of "disconnected".
REJOINED_WITHIN = 15.0


@pytest.fixture
def net() -> Iterator[Internet]:
    missing = netns_missing()
    if missing:
        pytest.skip(f"no namespaces: {missing}")
    with internet([False]) as made:
        yield made


async def server_port(page: Page) -> int:
    """The server's UDP port on the page's selected candidate pair."""
    port = await page.evaluate(
        """async () => {
             const stats = await window.__room.pc.getStats();
             let pair = null;
             stats.forEach((r) => {
               if (r.type === "transport" && r.selectedCandidatePairId) {
                 pair = stats.get(r.selectedCandidatePairId);
               }
             });
             return pair ? stats.get(pair.remoteCandidateId).port : null;
           }"""
    )
    assert isinstance(port, int), port
    return port


def nft(namespace: str, script: str) -> None:
    subprocess.run(
        ["ip", "netns", "exec", namespace, "nft", "-f", "-"],
        input=script, text=True, check=True, timeout=10,
    )  # fmt: skip


async def test_a_dead_audio_path_with_a_live_server_is_rejoined(
    net: Internet, tmp_path: Path
) -> None:
    (home,) = net.homes
    base = f"http://{net.address}:{PORT}"
    server = server_in_namespace(tmp_path / "log.db", net.public, base, PORT)
    server.start()
    try:
        with inside(net.public):
            links = await create_speech_table(server)
        host = await asyncio.to_thread(console_in, net.public, server, links["host"]["token"])
        host.close()
        async with async_playwright() as playwright:
            browser = await launch_chromium(
                playwright,
                args=[f"--unsafely-treat-insecure-origin-as-secure={base}"],
                executable=net.chromium(home, tmp_path),
                loopback=False,
            )
            try:
                page = await open_seat(browser, link_of(links, 3))
                port = await server_port(page)
                await mark_connection(page, "dead")
                nft(net.public, "table inet stall {\n chain input {\n"
                                "  type filter hook input priority 0;\n"
                                f"  udp dport {port} drop\n }}\n}}\n")  # fmt: skip
                closed = time.monotonic()
                await wait_audio_back(page, "dead", seconds=REJOINED_WITHIN)
                print(f"rejoined {time.monotonic() - closed:.1f} s after the port was closed")
                assert await server_port(page) != port
            finally:
                await browser.close()
    finally:
        server.kill()
