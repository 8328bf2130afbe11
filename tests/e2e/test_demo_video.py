"""`autohost demo` shows video (issue 17): every simulated player sends its seat number
drifting over its colour; a spectator's watch page shows those tiles live by day (two
frames differ: the picture moves) and hidden at night, like everyone's.

Set AUTOHOST_SCREENSHOTS=1 to write docs/screenshots/spectator.png (the watch page during
day 1 with the video tiles).
"""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import pytest
from playwright.async_api import Browser

from plugin.sim.picture import FPS, SeatPicture
from testing import AutohostProcess
from testing.browser import wait_for

from .test_widget import LONG_MS, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BOTS = (2, 3, 4)  # seat 1 is the human (the game waits in the lobby for the host)

# A frame of a tile's <video>, drawn to a canvas: its pixels as a short digest.
FRAME_JS = """(seat) => {
  const video = document.querySelector(`.tile[data-seat="${seat}"] video.video-stream`);
  if (!video || video.readyState < 2 || !video.videoWidth) return null;
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  const context = canvas.getContext("2d");
  context.drawImage(video, 0, 0);
  const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let bright = 0, sumX = 0, sumY = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i] > 240 && pixels[i + 1] > 240 && pixels[i + 2] > 240) {
      const p = i / 4;
      bright += 1; sumX += p % canvas.width; sumY += Math.floor(p / canvas.width);
    }
  }
  return {w: canvas.width, h: canvas.height, bright,
          x: bright ? sumX / bright : -1, y: bright ? sumY / bright : -1};
}"""


def test_a_seat_picture_shows_its_number_and_moves() -> None:
    """The picture itself: 160x120, the number drawn in white, somewhere else a second later."""
    picture = SeatPicture(7)
    first, later = picture.draw(0), picture.draw(FPS)
    assert first.shape == (120, 160, 3) and (first == 255).all(axis=2).sum() > 100
    assert (first != later).any()
    assert not ((first == 255).all(axis=2) & (later == 255).all(axis=2)).all()


async def test_the_demo_bots_send_moving_video_by_day_hidden_at_night(
    browser: Browser, tmp_path: Path
) -> None:
    demo = AutohostProcess(
        ["demo", "--humans", "1", "--port", "0", "--speed", "4", "--lang", "en",
         "--db", str(tmp_path / "demo.db"), "--seed", "5", "--no-voice"],
        ready="simulated players joined",
    )  # fmt: skip
    await asyncio.to_thread(demo.start, 120)
    try:
        text = "".join(demo.output)
        watch_link = re.search(r"spectators: +(\S+)", text).group(1)  # type: ignore[union-attr]
        host_link = re.search(r"host console: (\S+)", text).group(1)  # type: ignore[union-attr]
        watch = await browser.new_page(viewport={"width": 1280, "height": 760})
        watch.set_default_timeout(LONG_MS)
        errors: list[str] = []
        watch.on("pageerror", lambda error: errors.append(str(error)))
        await watch.goto(watch_link)
        # The lobby is day: every bot's tile goes live with its own picture.
        for seat in BOTS:
            await watch.wait_for_selector(f'.tile[data-seat="{seat}"] .video.video-live')
        async with asyncio.timeout(30):
            while (first := await watch.evaluate(FRAME_JS, 3)) is None:
                await asyncio.sleep(0.1)
        assert (first["w"], first["h"]) == (160, 120) and first["bright"] > 100, first
        async with asyncio.timeout(30):  # the number drifts: a later frame differs
            while True:
                await asyncio.sleep(0.5)
                later = await watch.evaluate(FRAME_JS, 3)
                if later and (abs(later["x"] - first["x"]) + abs(later["y"] - first["y"])) > 2:
                    break

        # The host starts the game: night zero, nobody's video reaches a spectator.
        console = await browser.new_page()
        await console.goto(host_link)
        await wait_for(console, "window.__console?.view?.phase === 'lobby'")
        await console.click("#next")
        await wait_for(watch, "window.__watch.view.phase === 'black_meeting'")
        for seat in BOTS:
            await watch.wait_for_selector(f'.tile[data-seat="{seat}"] .video.video-hidden')
            assert await watch.evaluate(
                f"""document.querySelector('.tile[data-seat="{seat}"] video.video-stream')
                    .hidden"""
            )
        # The morning: the pictures come back on the same connections.
        await wait_for(watch, "window.__watch.view.phase === 'speech'", timeout=180_000)
        for seat in BOTS:
            await watch.wait_for_selector(f'.tile[data-seat="{seat}"] .video.video-live')
        await screenshot(watch, "spectator.png")
        assert errors == []
    finally:
        code = await asyncio.to_thread(demo.stop, 60, signal.SIGINT)
    assert code == 0
