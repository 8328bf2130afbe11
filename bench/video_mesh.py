"""Video mesh bandwidth: what one page sends per peer at each quality, and what a table of
10 needs (bench/video_mesh.py; issue 8, docs/video.md).

    .venv/bin/python bench/video_mesh.py [--seconds 10] [--pages 3]

Real Chromium (fake camera: a moving test pattern, busier than a face on a wall, so the
encoder tends to use its whole budget), video.js over loopback, our server's /video relay.
Prints per-stream kbit/s and frames/s, and the 10-player mesh figures derived from them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.async_api import async_playwright
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from plugin.eventlog import log_opener
from plugin.host.settings import TableSettings
from plugin.paths import ROOT
from plugin.web.app import ServerConfig, create_app
from plugin.web.video import video_routes
from testing import serve
from testing.browser import launch_chromium, wait_for

STATIC_VIDEO = ROOT / "plugin" / "web" / "static" / "video"
STATIC_SOCKET = ROOT / "plugin" / "web" / "static" / "socket"  # video.js's signalling uses it
STATIC_EMBEDDED = ROOT / "plugin" / "web" / "static" / "embedded"  # video.js's ICE config


async def measure(quality: str, pages_count: int, seconds: float) -> tuple[float, float]:
    """(kbit/s, frames/s) page 1 sends to one peer, averaged over its peers."""
    with tempfile.TemporaryDirectory() as tmp:
        config = ServerConfig(
            db_path=Path(tmp) / "autohost.db", log=log_opener(Path(tmp) / "autohost.db"),
            admin_key="bench",
            secret=b"bench-secret-0123456789abcdef0123",
            routes=[video_routes, Mount("/static/video", StaticFiles(directory=STATIC_VIDEO)),
                    Mount("/static/socket", StaticFiles(directory=STATIC_SOCKET)),
                    Mount("/static/embedded", StaticFiles(directory=STATIC_EMBEDDED))],
        )  # fmt: skip
        app = create_app(config)
        async with serve(app) as url, async_playwright() as playwright:
            server = app.state.server
            table = await server.registry.create(TableSettings.from_record({"seats": 10}))
            links = server.links(table)
            browser = await launch_chromium(playwright)
            try:
                pages = []
                for seat in range(1, pages_count + 1):
                    page = await browser.new_page()
                    token = links["seats"][seat - 1]["token"]
                    await page.goto(f"{url}/static/video/test.html?token={token}&quality={quality}")
                    await wait_for(page, "window.ready === true", timeout=20_000)
                    pages.append(page)
                await asyncio.sleep(6)  # connect, and let the bandwidth estimate ramp up
                first = pages[0]
                before = await first.evaluate("window.video.traffic()")
                await asyncio.sleep(seconds)
                after = await first.evaluate("window.video.traffic()")
            finally:
                await browser.close()
    peers = list(after)
    kbits = sum(after[p]["sent"] - before[p]["sent"] for p in peers) * 8 / 1000 / seconds
    frames = sum(after[p]["framesSent"] - before[p]["framesSent"] for p in peers) / seconds
    return kbits / len(peers), frames / len(peers)


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--pages", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores); "
          "Chromium lowers the frame rate when the CPU is short")  # fmt: skip
    for quality in ("low", "high"):
        kbits, fps = await measure(quality, args.pages, args.seconds)
        print(f"{quality:>4}: {kbits:7.0f} kbit/s and {fps:4.1f} frames/s per stream "
              f"({args.pages} pages, {args.seconds:.0f} s); a table of 10: each player "
              f"sends and receives 9 streams = {9 * kbits / 1000:.1f} Mbit/s each way, "
              f"the host receives 10 = {10 * kbits / 1000:.1f} Mbit/s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
