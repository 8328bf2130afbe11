"""Waiting for something to happen, always with a deadline: a test that waits forever
hangs the whole run instead of failing and naming what it waited for."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

Check = Callable[[], bool | Awaitable[bool]]


async def eventually(
    check: Check,
    what: str = "the condition",
    *,
    seconds: float = 30.0,
    interval: float = 0.02,
    explain: Callable[[], str | Awaitable[str]] | None = None,
) -> None:
    """Until `check()` (a plain or async function) holds; AssertionError naming `what` (and
    what `explain()` says then) once `seconds` have passed. A deadline, not a count of
    tries: a slow check (a page's evaluate, a server round trip) must not stretch it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        if await _value(check()):
            return
        if loop.time() >= deadline:
            detail = f": {await _value(explain())}" if explain is not None else ""
            raise AssertionError(f"never happened within {seconds:g} s: {what}{detail}")
        await asyncio.sleep(interval)


async def steady(
    count: Callable[[], int], what: str, *, window: float = 0.3, seconds: float = 15.0
) -> int:
    """The value of `count()` once a whole `window` of seconds passes without it changing
    (what was already on its way has landed); AssertionError naming `what` if it still
    changes after `seconds`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        before = count()
        await asyncio.sleep(window)
        if count() == before:
            return before
        if loop.time() >= deadline:
            raise AssertionError(f"still changing after {seconds:g} s: {what}")


async def _value(result: T | Awaitable[T]) -> T:
    return await result if inspect.isawaitable(result) else result
