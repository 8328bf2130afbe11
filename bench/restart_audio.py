"""Audio back after a server restart, in the middle of a speech (issue 32).

A real `autohost serve` (embedded room, SQLite log) with a table in a speech, the speaker's
and a listener's pages in Chromium; the server is stopped with SIGTERM (an upgrade, as
systemd does it) and started again, `--restarts` times. For each restart: from the new
server printing "listening" (answering again) to both pages' audio flowing on their new
connections (packets of the room's mix arriving; the speaker's own audio is up in the room
by then, which is what ends the speech's wait, plugin/host/audio_wait.py).

    .venv/bin/python bench/restart_audio.py [--restarts 10]

Last line: JSON {"restart_audio_back_s": median, "restart_audio_back_max_s": max, ...}
(goal: under 2 s). Before issue 32 it was 16.5-18.6 s (the old peer connection had to be
declared dead first).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from testing import ServerProcess  # noqa: E402
from testing.browser import launch_chromium  # noqa: E402
from testing.figures import print_latency_summary  # noqa: E402
from testing.media_pages import (  # noqa: E402
    console,
    create_speech_table,
    mark_connection,
    open_speech_pages,
    speech_of,
    wait_audio_back,
)


async def measure(restarts: int) -> list[float]:
    backs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp) / "log.db", options=["--no-voice"])
        server.start()
        try:
            links = await create_speech_table(server, speech_seconds=600)
            speaker = await speech_of(links, lambda token: console(server, token))
            async with async_playwright() as playwright:
                browser = await launch_chromium(playwright)
                try:
                    pages = list((await open_speech_pages(browser, links, speaker)).values())
                    for index in range(restarts):
                        mark = f"restart-{index}"
                        for page in pages:
                            await mark_connection(page, mark)
                        server.stop()
                        server.start()
                        listening = time.monotonic()
                        back = [await wait_audio_back(p, mark, seconds=60) for p in pages]
                        backs.append(max(back) - listening)
                        print(f"restart {index + 1}: audio back {backs[-1]:.2f} s after listening")
                finally:
                    await browser.close()
        finally:
            server.kill()
    return backs


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--restarts", type=int, default=10)
    args = parser.parse_args()
    backs = await measure(args.restarts)
    print_latency_summary("restart_audio_back", backs, count="restarts")


if __name__ == "__main__":
    asyncio.run(main())
