"""Debian's Chromium through Playwright, for the end-to-end tests and the video bench.

Never `playwright install` (no download here): the browser is the system's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Frame, Page, Playwright
from playwright.async_api import Error as PlaywrightError

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


async def wait_for(
    page: Page | Frame,
    expression: str,
    arg: Any = None,
    *,
    timeout: float = 60_000,
    polling: float = 50,
) -> Any:
    """Playwright's `wait_for_function` for pages under a strict Content-Security-Policy
    (issue 31, plugin/web/headers.py): Playwright builds that predicate with `eval`, which
    the policy refuses, while `evaluate` goes through the DevTools protocol. Polls
    `expression` (an expression, or a function called with `arg`) every `polling` ms until
    it is truthy and answers it; TimeoutError after `timeout` ms. An expression that throws
    (a page between two documents has no `documentElement`, its scripts not yet loaded)
    is not true yet, as in `wait_for_function`; the last error is the timeout's cause."""
    deadline = time.monotonic() + timeout / 1000
    failure: PlaywrightError | None = None
    while True:
        try:
            value = await page.evaluate(expression, arg)
        except PlaywrightError as error:
            value, failure = None, error
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true within {timeout / 1000:g} s: {expression}") from failure
        await asyncio.sleep(polling / 1000)
