"""Relay only, through a real coturn on loopback: Chromium pages forced to
`iceTransportPolicy: "relay"` hear the bot, hear a speaker only in his turn, decode each
other's video, and every connection's selected candidate pair is a relay pair."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiortc import RTCConfiguration, RTCPeerConnection
from playwright.async_api import Browser, Page, async_playwright

from plugin.rooms.embedded import rtc_ice_servers
from plugin.web.ice import IceSettings
from testing.browser import launch_chromium
from testing.call import call_site, join, selected_pairs
from testing.certs import self_signed
from testing.coturn import Coturn, coturn_missing, running_coturn
from tests.e2e.harness import wait_for_audio

from .conftest import TURN_SECRET
from .day import HEARD, day, meter

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SEATS = (1, 2, 3)


async def test_relay_only_pages_hear_the_bot_and_the_speaker_and_see_each_other(
    tmp_path: Path, coturn: Coturn, browser: Browser, loopback_ice: None
) -> None:
    ice = IceSettings(
        stun=(coturn.stun_url,),
        turn=(coturn.turn_url, coturn.turn_tcp_url),
        turn_secret=TURN_SECRET.encode(),
        policy="relay",
    )
    async with call_site(tmp_path, ice=ice) as site:
        context = await browser.new_context()
        pages: dict[int, Page] = {}
        for seat in SEATS:
            pages[seat] = await context.new_page()
            await join(pages[seat], site, seat)
        await meter(pages)
        await day(site, pages)

        # Every connection of every page is a relay pair (UDP to coturn).
        for seat, page in pages.items():
            pairs = await selected_pairs(page)
            assert set(pairs) == {"audio", *(f"video:{s}" for s in SEATS if s != seat)}, pairs
            for name, pair in pairs.items():
                assert pair is not None and pair["local"] == "relay", (seat, name, pair)
        assert coturn.allocations() >= len(SEATS) * len(SEATS)  # audio + 2 video each


async def test_the_servers_own_peers_allocate_on_turn(coturn: Coturn, loopback_ice: None) -> None:
    ice = IceSettings(turn=(coturn.turn_url,), turn_secret=TURN_SECRET.encode())
    pc = RTCPeerConnection(RTCConfiguration(iceServers=rtc_ice_servers(ice.servers("server"))))
    try:
        pc.addTransceiver("audio")
        await pc.setLocalDescription(await pc.createOffer())
        relayed = [
            line
            for line in pc.localDescription.sdp.splitlines()
            if line.startswith("a=candidate") and " typ relay " in line
        ]
        assert relayed and f" {coturn.host} " in relayed[0], pc.localDescription.sdp
        assert coturn.allocations() >= 1
    finally:
        await pc.close()


async def test_turn_over_tcp_for_networks_that_block_udp(
    tmp_path: Path, coturn: Coturn, browser: Browser, loopback_ice: None
) -> None:
    """Only `turn:...?transport=tcp` offered, relay only: the page still joins and is heard,
    its pair relayed over TCP to coturn."""
    ice = IceSettings(turn=(coturn.turn_tcp_url,), turn_secret=TURN_SECRET.encode(), policy="relay")
    async with call_site(tmp_path, ice=ice) as site:
        page = await browser.new_page()
        await join(page, site, 1, video=False)
        await meter({1: page})
        await wait_for_audio(page, "table", above=HEARD)
        pair = (await selected_pairs(page))["audio"]
        assert pair is not None and pair["local"] == "relay", pair
        assert pair["relayProtocol"] == "tcp", pair


async def test_turn_over_tls(tmp_path: Path, loopback_ice: None) -> None:
    """Only `turns:` offered (TLS to coturn, the way through a firewall that lets only
    TLS out), relay only: the page joins, is heard, its pair relayed over TLS."""
    missing = coturn_missing()
    if missing:
        pytest.skip(missing)
    cert, key = self_signed(tmp_path / "tls", "turn.autohost.test")
    with running_coturn(tmp_path / "turn", secret=TURN_SECRET, tls=(cert, key)) as turn:
        ice = IceSettings(turn=(turn.turns_url,), turn_secret=TURN_SECRET.encode(), policy="relay")
        async with call_site(tmp_path, ice=ice) as site, async_playwright() as playwright:
            browser = await launch_chromium(playwright, args=["--ignore-certificate-errors"])
            try:
                page = await browser.new_page()
                await join(page, site, 1, video=False)
                await meter({1: page})
                await wait_for_audio(page, "table", above=HEARD)
                pair = (await selected_pairs(page))["audio"]
            finally:
                await browser.close()
    assert pair is not None and pair["local"] == "relay", pair
    assert pair["relayProtocol"] == "tls", pair
