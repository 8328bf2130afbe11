#!/usr/bin/env python3
"""The video mesh's cost per page with 10 and 12 seats, behind NAT (network namespaces).

    bench/mesh_upload.py [--seats 10 12] [--seconds 10] [--settle 10] [--homes 4]

The internet of tests/internet/test_nat.py (testing.netns; root only): the server
and coturn public, `--homes` homes behind their own NAT (the last one symmetric), one
headless Chromium per home holding that home's pages (the seats dealt round-robin), video
only (the audio goes through the server and is not the mesh's cost). After `--settle`
seconds it measures every page's video bytes sent and received over `--seconds`.

Last line, JSON: mesh_upload_kbps_per_page (10 seats), mesh_upload_kbps_per_page_12,
mesh_download_kbps_per_page[_12], mesh_fps_per_stream[_12] (frames sent per stream per
second, averaged: Chromium lowers it when the CPU is short) and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.async_api import Browser, Page, async_playwright

from plugin.web.ice import IceSettings
from testing.browser import launch_chromium
from testing.call import call_site, join
from testing.coturn import coturn_missing, running_coturn
from testing.netns import inside, internet, netns_missing

SECRET = "bench-turn-secret"


async def traffic(page: Page) -> dict[str, dict[str, float]]:
    return dict(await page.evaluate("window.video.traffic()"))


async def measure(seats: int, homes: int, settle: float, seconds: float) -> dict[str, float]:
    """Average video kbit/s sent and received per page, and frames/s per stream sent."""
    symmetric = [False] * (homes - 1) + [True]
    async with contextlib.AsyncExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        net = stack.enter_context(internet(symmetric, tag=f"bm{os.getpid() % 10000}"))
        turn = stack.enter_context(running_coturn(
            folder / "turn", secret=SECRET, listen=net.address, port=3478,
            prefix=["ip", "netns", "exec", net.public], loopback_peers=False))  # fmt: skip
        ice = IceSettings(stun=(turn.stun_url,), turn=(turn.turn_url,),
                          turn_secret=SECRET.encode())  # fmt: skip
        stack.enter_context(inside(net.public))  # the server's sockets are public ones
        site = await stack.enter_async_context(
            call_site(folder, ice=ice, host=net.address, port=8000, seats=max(seats, 10))
        )
        pw = await stack.enter_async_context(async_playwright())
        origin = f"--unsafely-treat-insecure-origin-as-secure={site.url}"
        browsers: list[Browser] = []
        for home in net.homes:
            browser = await launch_chromium(pw, args=[origin], loopback=False,
                                            executable=net.chromium(home, folder))  # fmt: skip
            stack.push_async_callback(browser.close)
            browsers.append(browser)
        pages: list[Page] = []
        for seat in range(1, seats + 1):
            page = await browsers[(seat - 1) % homes].new_page()
            await join(page, site, seat, audio=False, timeout=60)
            pages.append(page)
        await asyncio.sleep(settle)
        before = [await traffic(p) for p in pages]
        await asyncio.sleep(seconds)
        after = [await traffic(p) for p in pages]
    sent = recv = frames = 0.0
    streams = 0
    for start, end in zip(before, after, strict=True):
        for peer, now in end.items():
            was = start.get(peer, {"sent": 0, "received": 0, "framesSent": 0})
            sent += now["sent"] - was["sent"]
            recv += now["received"] - was["received"]
            frames += now["framesSent"] - was["framesSent"]
            streams += 1
    return {
        "upload": sent * 8 / 1000 / seconds / seats,
        "download": recv * 8 / 1000 / seconds / seats,
        "fps": frames / seconds / max(streams, 1),
    }


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="+", default=[10, 12])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--settle", type=float, default=10)
    parser.add_argument("--homes", type=int, default=4)
    args = parser.parse_args(argv)
    missing = netns_missing() or coturn_missing()
    if missing:
        print(f"mesh_upload: not measured: {missing}", file=sys.stderr)
        return 1
    figures: dict[str, Any] = {}
    for seats in args.seats:
        load = os.getloadavg()[0]
        got = await measure(seats, args.homes, args.settle, args.seconds)
        suffix = "" if seats == 10 else f"_{seats}"
        figures[f"mesh_upload_kbps_per_page{suffix}"] = round(got["upload"])
        figures[f"mesh_download_kbps_per_page{suffix}"] = round(got["download"])
        figures[f"mesh_fps_per_stream{suffix}"] = round(got["fps"], 1)
        print(f"{seats} seats ({args.homes} homes, one symmetric NAT; load average before "
              f"{load:.1f} on {os.cpu_count()} cores): each page sends {got['upload']:.0f} "
              f"kbit/s and receives {got['download']:.0f} kbit/s of video, "
              f"{got['fps']:.1f} frames/s per stream", flush=True)  # fmt: skip
    figures["mesh_load_average"] = round(os.getloadavg()[0], 1)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
