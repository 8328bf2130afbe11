"""The garbage collector's policy for a running server: no full pass in the middle of play.

CPython's full collection (generation 2) walks every object the collector tracks that is
not frozen, and the event loop stops while it does. A server with 50 tables and 600 sockets
under load promotes some 8,000 objects a second to the oldest generation (each socket's
tasks and buffers, each table's recent states for the stream's delay, the tables that
replace finished ones), and CPython ran a full pass every 6-8 s over what had come since
the last: 40-57 ms each (bench/load.py, timed with a gc callback). Every vote in flight
waited through it; those pauses were a good part of the vote-to-widgets p99.

Nearly everything that reaches the oldest generation stays alive a long time (a connection
lasts a game), and what dies there is freed by reference counting anyway; only cyclic
garbage needs a full pass. So, from `start()` on:
- what the start made (modules, the tables loaded, the voice's phrases) is frozen at once;
- generation 2 gets no automatic pass (its threshold is set out of reach); the young
  generations are collected as usual, so a cycle that dies young is freed as before;
- every `sweep_seconds` (10 minutes) one full pass runs on everything (unfrozen first):
  cyclic garbage that reached the oldest generation (a closed connection's tasks) waits
  for it, no longer. Then what survived is frozen again. That pass is the long one, once
  per sweep, as a full pass over everything was before.

`stop()` gives back the thresholds it found and unfreezes everything.
"""

from __future__ import annotations

import asyncio
import gc

from plugin.tasks import cancel_and_wait

SWEEP_SECONDS = 600.0
FULL_PASSES_OFF = 1 << 30  # generation 2's threshold (middle passes before a full one): never


class Collector:
    """The policy, started on the server's event loop and stopped with it."""

    def __init__(self, sweep_seconds: float = SWEEP_SECONDS) -> None:
        self.sweep_seconds = sweep_seconds
        self.sweeps = 0  # full passes run by the sweep (tests, benches)
        self._thresholds: tuple[int, int, int] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        gc.collect()
        gc.freeze()
        self._thresholds = gc.get_threshold()
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, FULL_PASSES_OFF)
        self._sweeper = asyncio.create_task(self._sweep(), name="gc sweep")

    async def stop(self) -> None:
        await cancel_and_wait([self._sweeper])
        self._sweeper = None
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None
        gc.unfreeze()

    def sweep(self) -> None:
        """One full pass over everything, then what survived is frozen."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.sweeps += 1

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_seconds)
            self.sweep()
