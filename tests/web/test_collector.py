"""The server's collector policy (plugin/server/collector.py): what survives a full pass is
frozen, so the next pass walks only what is new; a sweep unfreezes everything, so cyclic
garbage among frozen objects is freed after all, not kept for good."""

from __future__ import annotations

import asyncio
import gc
import weakref

from plugin.server.collector import Collector


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> weakref.ref[Node]:
    """Two objects that only the collector can free (each refers to the other)."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


async def _until(condition, seconds: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not within the time")


async def test_survivors_of_a_full_pass_are_frozen() -> None:
    collector = Collector(sweep_seconds=3600)
    collector.start()
    try:
        assert gc.get_freeze_count() > 0  # what the start made
        kept = [Node() for _ in range(1_000)]  # live objects made after the start
        frozen = gc.get_freeze_count()
        gc.collect()  # a full pass: they survive it
        await _until(lambda: collector.freezes == 1)
        assert gc.get_freeze_count() >= frozen + len(kept)
        assert not any(gc.is_tracked(n) and n in gc.get_objects(2) for n in kept[:3])
    finally:
        await collector.stop()
    assert gc.get_freeze_count() == 0  # stopped: nothing stays frozen


async def test_a_sweep_frees_cyclic_garbage_that_was_frozen() -> None:
    collector = Collector(sweep_seconds=0.2)
    collector.start()
    try:
        garbage = _cycle()
        gc.freeze()  # as if it was still alive at a freeze (a closed connection's tasks)
        gc.collect()
        assert garbage() is not None  # frozen: the full pass does not look at it
        await _until(lambda: collector.sweeps >= 1)
        gc.collect()
        assert garbage() is None  # the sweep unfroze it, and the next pass freed it
    finally:
        await collector.stop()


async def test_stopping_removes_the_callback() -> None:
    collector = Collector(sweep_seconds=3600)
    collector.start()
    await collector.stop()
    gc.collect()
    await asyncio.sleep(0.05)
    assert collector.freezes == 0
    assert gc.get_freeze_count() == 0
