"""What the demo bots' video costs (issue 17): `autohost demo` with one human seat (the game
waits in its lobby, which is day: every bot sends), one spectator's watch page in Chromium
receiving the 9 bots' pictures; the demo process's CPU with the bots' video on and with
--no-video, and the difference.

    .venv/bin/python bench/demo_video.py [--seconds 10] [--settle 6]

Last line: JSON {"demo_video_cpu_percent", "demo_no_video_cpu_percent",
"demo_video_cost_percent", "demo_video_fps"}: percent of one core for the whole demo
process; fps: frames per second the watch page decoded per bot tile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.async_api import async_playwright

from testing import AutohostProcess
from testing.browser import launch_chromium

DECODED_JS = """async () => {
  const tiles = [...document.querySelectorAll('.tile .video video.video-stream')];
  return tiles.reduce((n, v) => n + (v.getVideoPlaybackQuality?.().totalVideoFrames ?? 0), 0);
}"""


async def measure(video: bool, seconds: float, settle: float) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        args = ["demo", "--humans", "1", "--port", "0", "--lang", "en", "--no-voice",
                "--db", str(Path(tmp) / "demo.db"), "--seed", "5"]  # fmt: skip
        demo = AutohostProcess([*args, *([] if video else ["--no-video"])],
                               ready="simulated players joined")  # fmt: skip
        await asyncio.to_thread(demo.start, 120)
        try:
            link = re.search(r"spectators: +(\S+)", "".join(demo.output)).group(1)  # type: ignore[union-attr]
            async with async_playwright() as playwright:
                browser = await launch_chromium(playwright)
                page = await browser.new_page()
                await page.goto(link)
                if video:
                    await page.wait_for_selector('.tile[data-seat="10"] .video.video-live',
                                                 timeout=60_000)  # fmt: skip
                await asyncio.sleep(settle)
                cpu, frames, wall = (
                    demo.cpu_seconds(),
                    await page.evaluate(DECODED_JS),
                    time.perf_counter(),
                )
                await asyncio.sleep(seconds)
                elapsed = time.perf_counter() - wall
                percent = 100 * (demo.cpu_seconds() - cpu) / elapsed
                fps = (await page.evaluate(DECODED_JS) - frames) / elapsed / 9
                await browser.close()
        finally:
            code = await asyncio.to_thread(demo.stop, 60, signal.SIGINT)
        if code != 0:
            raise SystemExit(f"bench: the demo exited with {code}")
        return percent, fps


async def main(seconds: float, settle: float) -> dict[str, float]:
    on, fps = await measure(True, seconds, settle)
    off, _ = await measure(False, seconds, settle)
    print(f"demo, 9 bots, one spectator: {on:.1f} % of a core with video, {off:.1f} % without "
          f"({fps:.1f} fps per tile; load average {os.getloadavg()[0]:.1f})")  # fmt: skip
    return {
        "demo_video_cpu_percent": round(on, 1),
        "demo_no_video_cpu_percent": round(off, 1),
        "demo_video_cost_percent": round(on - off, 1),
        "demo_video_fps": round(fps, 1),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--settle", type=float, default=6.0)
    options = parser.parse_args()
    print(json.dumps(asyncio.run(main(options.seconds, options.settle))))
