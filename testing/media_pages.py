"""Seat pages in Chromium with their audio connection to the embedded room, and when that
audio flows: what the restart and blip tests and benches share (issue 32). Also a table
taken to a speech through a real server (`create_speech_table`, `console`, `to_a_speech`,
`speech_of`) and its speaker's and a listener's pages (`open_speech_pages`).

A page's audio connection is `window.__room` (widget/av.js): each (re)join replaces it. A
mark set on the connection in use (`mark_connection`) tells the new one from the old;
`audio_flowing` is true once the page's current connection is not the marked one and
packets of the room's mix arrive on it (the server's mixer sends every 20 ms to every
connected peer, so packets arriving is the path working).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page

from .netns import inside
from .process import ServerProcess
from .socket_client import Client, connect
from .waiting import eventually

_PACKETS_JS = """
async (mark) => {
  const room = window.__room;
  if (!room || (mark !== null && room.__mark === mark)) return -1;
  if (room.pc.connectionState !== "connected") return -1;
  const stats = await room.pc.getStats();
  let packets = 0;
  stats.forEach((r) => {
    if (r.type === "inbound-rtp" && r.kind === "audio") packets = r.packetsReceived;
  });
  return packets;
}
"""


async def open_seat(browser: Browser, link: str) -> Page:
    """A seat's page at `link`, once its audio connection carries the room's mix."""
    page = await browser.new_page()
    await page.goto(link, timeout=30_000)
    await eventually(lambda: audio_flowing(page, None), "the page's audio", seconds=30)
    return page


async def packets(page: Page, mark: str | None) -> int:
    """Audio packets received on the page's connection; -1 while it is the marked one or
    not connected."""
    try:
        return int(await page.evaluate(_PACKETS_JS, mark))
    except Exception:  # the page is between connections (a navigation, a closed context)
        return -1


async def audio_flowing(page: Page, mark: str | None, *, at_least: int = 5) -> bool:
    """The page's current connection (not the `mark`ed one) received `at_least` packets."""
    return await packets(page, mark) >= at_least


async def mark_connection(page: Page, mark: str) -> None:
    """Tag the page's connection in use now, so a new one can be told from it."""
    await page.evaluate("(mark) => { window.__room.__mark = mark; }", mark)


async def wait_audio_back(page: Page, mark: str, *, seconds: float) -> float:
    """Wait until the page's audio flows on a connection other than the marked one;
    time.monotonic() when it was seen (polled every 20 ms). AssertionError after `seconds`."""
    deadline = time.monotonic() + seconds
    while not await audio_flowing(page, mark):
        assert time.monotonic() < deadline, f"the page's audio was not back in {seconds:g} s"
        await asyncio.sleep(0.02)
    return time.monotonic()


# --- a table in a speech, through a real server ------------------------------------------


async def create_speech_table(server: ServerProcess, speech_seconds: float = 60) -> dict[str, Any]:
    """A table of 10 (online rules, seed 4) made through the admin API; its links."""
    async with server.http() as http:
        made = await http.post(
            "/api/tables",
            json={"seats": 10, "preset": "online", "language": "uk", "seed": 4,
                  "overrides": {"speech_seconds": speech_seconds}},
        )  # fmt: skip
    assert made.status_code == 201, made.text
    return made.json()  # type: ignore[no-any-return]


def console(server: ServerProcess, token: str) -> Client:
    """The host's socket, past its first state."""
    client = connect(server.ws_url(token))
    first = client.receive()
    assert first["type"] == "state", first
    return client


def to_a_speech(host: Client) -> int:
    """Start the game and go on to the first speech; its speaker."""
    host.ack("start")
    deadline = time.monotonic() + 30
    while True:
        state = host.state
        assert state is not None
        if state["phase"] == "speech" and state["speaker"]:
            return int(state["speaker"])
        assert time.monotonic() < deadline, state
        host.ack("next")


async def speech_of(links: dict[str, Any], open_console: Callable[[str], Client]) -> int:
    """The table of `links` taken to its first speech by the host's console, opened by
    `open_console(host token)` (`console`, or `console_in` a namespace) and closed again;
    the speaker's seat."""
    host = await asyncio.to_thread(open_console, links["host"]["token"])
    try:
        return await asyncio.to_thread(to_a_speech, host)
    finally:
        host.close()


def listener_of(speaker: int) -> int:
    """The seat that listens to `speaker`: 1, or 2 when 1 speaks."""
    return 1 if speaker != 1 else 2


async def open_speech_pages(
    browser: Browser, links: dict[str, Any], speaker: int, *, mark: str | None = None
) -> dict[int, Page]:
    """The speaker's and a listener's pages, each once its audio carries the room's mix
    (and with that connection marked `mark`, when given): by seat, the speaker's first."""
    pages: dict[int, Page] = {}
    for seat in (speaker, listener_of(speaker)):
        pages[seat] = await open_seat(browser, link_of(links, seat))
        if mark is not None:
            await mark_connection(pages[seat], mark)
    return pages


def link_of(links: dict[str, Any], seat: int) -> str:
    """Seat `seat`'s page link."""
    (found,) = [s["link"] for s in links["seats"] if s["seat"] == seat]
    return str(found)


_RECEIVED_JS = """
async (mark) => {
  const room = window.__room;
  if (!room) return [false, 0];
  const stats = await room.pc.getStats();
  let packets = 0;
  stats.forEach((r) => {
    if (r.type === "inbound-rtp" && r.kind === "audio") packets = r.packetsReceived;
  });
  return [room.__mark === mark, packets];
}
"""


async def received(page: Page, mark: str) -> tuple[bool, int]:
    """(whether the page's connection is still the marked one, its audio packets so far),
    whatever the connection's state."""
    same, count = await page.evaluate(_RECEIVED_JS, mark)
    return bool(same), int(count)


async def wait_packets_again(page: Page, mark: str, *, seconds: float) -> float:
    """After a cut: wait until audio packets arrive again, on the marked connection (it
    recovered) or on a new one (the page rejoined); time.monotonic() when seen."""
    _, before = await received(page, mark)
    deadline = time.monotonic() + seconds
    while True:
        same, count = await received(page, mark)
        if (same and count >= before + 3) or (not same and count >= 3):
            return time.monotonic()
        assert time.monotonic() < deadline, f"no audio packets in {seconds:g} s after the cut"
        await asyncio.sleep(0.02)


# --- a server in a network namespace (testing.netns) -------------------------------------


def server_in_namespace(db: Path, namespace: str, base: str, port: int) -> ServerProcess:
    """`autohost serve` (embedded room, no voice) inside `namespace` on every address of it,
    port `port`, its links under `base`; not started. The admin API and sockets are reached
    from a thread `inside(namespace)` at 127.0.0.1 (ServerProcess.http, console)."""
    server = ServerProcess(
        db, port=port, options=["--no-voice", "--host", "0.0.0.0", "--base-url", base]
    )
    server.command = ["ip", "netns", "exec", namespace, *server.command]
    return server


def console_in(namespace: str, server: ServerProcess, token: str) -> Client:
    """`console` from inside `namespace` (the socket stays there)."""
    with inside(namespace):
        return console(server, token)
