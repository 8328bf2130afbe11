"""Players behind NAT, for real, in network namespaces: the server and coturn in a "public"
namespace, three homes each behind its own NAT (two port-preserving, one symmetric), a
headless Chromium in each home. A day of a game works (the bot, two speeches, the gate,
video between every pair), and getStats shows how each connection got through: direct to
the server, STUN hole punching between the port-preserving homes, TURN for the symmetric.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright

from plugin.web.ice import IceSettings
from testing.browser import launch_chromium
from testing.call import CallSite, call_site, join, selected_pairs
from testing.coturn import Coturn, coturn_missing, running_coturn
from testing.netns import Internet, inside, internet, netns_missing

from .conftest import TURN_SECRET
from .day import day, meter

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

NATS = (False, False, True)  # homes 1 and 2 port-preserving, home 3 symmetric
PORT = 8000  # inside the public namespace: nothing else is there
DIRECT = {"host", "srflx", "prflx"}


@pytest.fixture
def net() -> Iterator[Internet]:
    missing = netns_missing() or coturn_missing()
    if missing:
        pytest.skip(f"no NAT test: {missing}")
    with internet(NATS) as made:
        yield made


@pytest.fixture
def turn(net: Internet, tmp_path: Path) -> Iterator[Coturn]:
    prefix = ["ip", "netns", "exec", net.public]
    with running_coturn(
        tmp_path / "turn",
        secret=TURN_SECRET,
        listen=net.address,
        port=3478,
        prefix=prefix,
        loopback_peers=False,
    ) as server:
        yield server


@pytest.fixture
async def site(net: Internet, turn: Coturn, tmp_path: Path) -> AsyncIterator[CallSite]:
    ice = IceSettings(
        stun=(turn.stun_url,),
        turn=(turn.turn_url, turn.turn_tcp_url),
        turn_secret=TURN_SECRET.encode(),
    )
    # This thread opens the server's sockets (HTTP, aiortc's UDP) in the public namespace.
    with inside(net.public):
        async with call_site(tmp_path, ice=ice, host=net.address, port=PORT) as made:
            yield made


@pytest.fixture
async def browsers(net: Internet, site: CallSite, tmp_path: Path) -> AsyncIterator[list[Browser]]:
    origin = f"--unsafely-treat-insecure-origin-as-secure={site.url}"  # the microphone
    async with async_playwright() as playwright:
        launched: list[Browser] = []
        try:
            for home in net.homes:
                wrapper = net.chromium(home, tmp_path)
                launched.append(
                    await launch_chromium(
                        playwright, args=[origin], executable=wrapper, loopback=False
                    )
                )
            yield launched
        finally:
            for browser in launched:
                await browser.close()


async def test_a_day_behind_nat_direct_where_possible_relay_for_the_symmetric_nat(
    net: Internet, site: CallSite, browsers: list[Browser], turn: Coturn
) -> None:
    pages: dict[int, Page] = {}
    for seat, browser in enumerate(browsers, start=1):
        pages[seat] = await browser.new_page()
        await join(pages[seat], site, seat, timeout=40)
    await meter(pages)
    await day(site, pages, timeout=30)

    homes = dict(enumerate(net.homes, start=1))
    found = {seat: await selected_pairs(page) for seat, page in pages.items()}
    print("selected candidate pairs:", found)
    for seat, pairs in found.items():
        audio = pairs["audio"]
        assert audio is not None, (seat, pairs)
        # The server has a public address: every home reaches it directly, even the
        # symmetric one (its NAT lets the server's answers back in).
        assert audio["local"] in DIRECT and audio["remote"] == "host", (seat, audio)
        assert audio["remoteAddress"].startswith(net.address + ":"), audio
        for other in pages:
            if other == seat:
                continue
            pair = pairs[f"video:{other}"]
            assert pair is not None, (seat, other, pairs)
            kinds = (pair["local"], pair["remote"])
            if homes[seat].symmetric or homes[other].symmetric:
                assert "relay" in kinds, (seat, other, pair)
            else:  # hole punched: the other home's public (NAT) address, no relay
                assert "relay" not in kinds, (seat, other, pair)
                assert pair["remote"] in ("srflx", "prflx"), (seat, other, pair)
                if pair["remote"] == "srflx":  # Chromium hides a prflx address
                    assert pair["remoteAddress"].startswith(homes[other].public + ":"), pair
