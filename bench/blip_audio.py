"""Audio back after a player's own network cuts out for 2-10 s (issue 32).

The server (`autohost serve`, embedded room) in a "public" network namespace, a player's
page in Chromium in a home namespace behind a NAT (testing.netns); the home's link to the
public side is taken down for 2, 4, 6, 8 and 10 s (`--cuts` of them in turn) while the page
listens to the room's mix. For each cut: from the link coming back to audio packets arriving
at the page again (its connection recovering, or a new one if it rejoined). The speech's
timer runs on meanwhile: his network is his (docs/servers.md). Root only.

    .venv/bin/python bench/blip_audio.py [--cuts 10]

Last line: JSON {"blip_audio_back_s": median, "blip_audio_back_max_s": max, ...} (goal:
under 2 s).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from testing.browser import launch_chromium  # noqa: E402
from testing.figures import print_latency_summary  # noqa: E402
from testing.media_pages import (  # noqa: E402
    console_in,
    create_speech_table,
    link_of,
    mark_connection,
    open_seat,
    server_in_namespace,
    speech_of,
    wait_packets_again,
)
from testing.netns import inside, internet, netns_missing  # noqa: E402

PORT = 8000  # inside the public namespace: nothing else is there


def link(namespace: str, device: str, state: str) -> None:
    subprocess.run(["ip", "-n", namespace, "link", "set", device, state], check=True, timeout=10)


async def measure(cuts: int, tmp: Path) -> list[float]:
    backs: list[float] = []
    with internet([False]) as net:
        (home,) = net.homes
        base = f"http://{net.address}:{PORT}"
        server = server_in_namespace(tmp / "log.db", net.public, base, PORT)
        server.start()
        try:
            with inside(net.public):  # the admin API from there
                links = await create_speech_table(server, speech_seconds=600)
            # The host's socket from there too (it stays in the namespace).
            speaker = await speech_of(links, lambda token: console_in(net.public, server, token))
            async with async_playwright() as playwright:
                browser = await launch_chromium(
                    playwright,
                    args=[f"--unsafely-treat-insecure-origin-as-secure={base}"],
                    executable=net.chromium(home, tmp),
                    loopback=False,
                )
                try:
                    page = await open_seat(browser, link_of(links, speaker))
                    for index in range(cuts):
                        seconds = 2 + 2 * (index % 5)  # 2, 4, 6, 8, 10 s
                        mark = f"cut-{index}"
                        await mark_connection(page, mark)
                        link(net.public, "n1", "down")  # the home's line to the world
                        await asyncio.sleep(seconds)
                        link(net.public, "n1", "up")
                        up = time.monotonic()
                        back = await wait_packets_again(page, mark, seconds=60) - up
                        backs.append(back)
                        print(f"cut {index + 1} ({seconds} s): audio back {back:.2f} s after")
                        await asyncio.sleep(1)
                finally:
                    await browser.close()
        finally:
            server.kill()
    return backs


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuts", type=int, default=10)
    args = parser.parse_args()
    missing = netns_missing()
    if missing:
        sys.exit(f"blip_audio: {missing}")
    with tempfile.TemporaryDirectory() as tmp:
        backs = await measure(args.cuts, Path(tmp))
    print_latency_summary("blip_audio_back", backs, count="cuts")


if __name__ == "__main__":
    asyncio.run(main())
