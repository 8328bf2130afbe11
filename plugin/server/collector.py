"""The garbage collector's policy for a running server: full passes that stay short.

CPython's full collection (generation 2) walks every object the collector tracks, and the
event loop stops while it does. A server with 50 tables and 600 sockets tracks about
150,000 (each socket's ASGI coroutines, tasks and buffers; each table's recent states for
the stream's delay), and a full pass then took 26-75 ms on this machine's cores
(bench/load.py, measured with a gc callback): every vote in flight waited through it, and
those pauses were the vote-to-widgets p99.

What survives a full pass is almost all live for a long time (a connection lasts a game).
So, from `start()` on:
- what the start made (modules, the tables loaded, the voice's phrases) is frozen at once:
  no full pass walks it again;
- right after each full pass, what survived it is frozen too, so the next pass walks only
  what was made since: a few thousand objects, a millisecond or two;
- every `sweep_seconds` (10 minutes) everything is unfrozen, so one full pass looks at all
  of it again: cyclic garbage among frozen objects (a closed connection's tasks) is freed
  then instead of kept for good. That pass is the long one, once per sweep.

Freezing never keeps an object alive that its references would free: reference counting
works on frozen objects as on any other; only cycles wait for the sweep.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from typing import Any

SWEEP_SECONDS = 600.0


class Collector:
    """The policy, started on the server's event loop and stopped with it."""

    def __init__(self, sweep_seconds: float = SWEEP_SECONDS) -> None:
        self.sweep_seconds = sweep_seconds
        self.freezes = 0  # survivors frozen after a full pass (tests, benches)
        self.sweeps = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        gc.collect()
        gc.freeze()
        gc.callbacks.append(self._collected)
        self._sweeper = asyncio.create_task(self._sweep(), name="gc sweep")

    async def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._collected)
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        gc.unfreeze()

    def _collected(self, phase: str, info: dict[str, Any]) -> None:
        # Any thread may run a collection (the log's writer too); the freeze is done on the
        # loop, just after, not inside the collector's own callback.
        if phase == "stop" and info.get("generation") == 2 and self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                self._loop.call_soon_threadsafe(self._freeze)

    def _freeze(self) -> None:
        gc.freeze()
        self.freezes += 1

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            gc.unfreeze()  # the next full pass (on the collector's own schedule) sees all
            self.sweeps += 1
