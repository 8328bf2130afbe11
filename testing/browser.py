"""Debian's Chromium through Playwright, for the end-to-end tests and the video bench.

Never `playwright install` (no download here): the browser is the system's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from playwright.async_api import Browser, Playwright

CHROMIUM = "/usr/bin/chromium"

LOOPBACK_FLAG = "--allow-loopback-in-peer-connection"
# Measured to work headless on this machine (FIELD-NOTES). The fake microphone beeps; the
# fake camera draws frames; loopback candidates need their own flag.
CHROMIUM_ARGS = [
    "--use-fake-ui-for-media-stream",
    "--use-fake-device-for-media-stream",
    LOOPBACK_FLAG,
    "--autoplay-policy=no-user-gesture-required",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Many pages in one browser must all keep their timers and audio running.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]


async def launch_chromium(
    playwright: Playwright,
    *,
    args: Sequence[str] = (),
    executable: str | Path = CHROMIUM,
    loopback: bool = True,
) -> Browser:
    """Debian's Chromium, headless, with the flags above (plus any extra `args`);
    `executable`: a wrapper that runs it (in a network namespace, testing.netns);
    `loopback=False`: no loopback ICE candidates (a browser on a real network offers none).
    """
    flags = [f for f in CHROMIUM_ARGS if loopback or f != LOOPBACK_FLAG]
    return await playwright.chromium.launch(
        executable_path=str(executable), headless=True, args=[*flags, *args]
    )
