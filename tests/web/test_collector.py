"""The server's collector policy (plugin/server/collector.py): no full pass runs on its own
while the server plays, however much reaches the oldest generation; cyclic garbage there
waits for the sweep, which frees it and freezes what survived; stopping gives back the
collector's thresholds."""

from __future__ import annotations

import asyncio
import gc
import weakref

from plugin.server.collector import Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    """Two objects that only the collector can free once dropped (each refers to the
    other): one of them, and a weak reference that tells when they are freed."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)


def _full_passes() -> int:
    return int(gc.get_stats()[2]["collections"])


async def _until(condition, seconds: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not within the time")


async def test_no_full_pass_between_sweeps_and_the_sweep_frees_old_cycles() -> None:
    before = gc.get_threshold()
    collector = Collector(sweep_seconds=3600)
    collector.start()
    try:
        assert gc.get_freeze_count() > 0  # what the start made
        node, garbage = _cycle()
        gc.collect(1)  # alive at two young passes: it is in the oldest generation now
        del node  # now garbage, which only a full pass can free
        passes = _full_passes()
        # Much more than CPython's default policy needs for a full pass of its own
        # (ten middle passes, a quarter more objects in the oldest generation).
        kept = [[Node()] for _ in range(300_000)]
        for _ in range(50):
            gc.collect(1)
        assert _full_passes() == passes, "a full pass ran between sweeps"
        assert garbage() is not None
        collector.sweep()
        assert garbage() is None  # the sweep's full pass freed it
        assert collector.sweeps == 1
        assert gc.get_freeze_count() >= len(kept)  # and froze what survived
    finally:
        await collector.stop()
    assert gc.get_freeze_count() == 0  # stopped: nothing stays frozen
    assert gc.get_threshold() == before  # and the thresholds are what they were


async def test_the_sweep_runs_on_its_schedule() -> None:
    collector = Collector(sweep_seconds=0.2)
    collector.start()
    try:
        node, garbage = _cycle()
        gc.freeze()  # as if it was still alive at a sweep (a closed connection's tasks)
        del node
        gc.collect()
        assert garbage() is not None  # frozen: a full pass does not look at it
        await _until(lambda: collector.sweeps >= 1)
        assert garbage() is None  # the sweep unfroze it and freed it
    finally:
        await collector.stop()
