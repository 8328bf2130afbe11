"""This process's CPU over a window of time, by thread: what the LiveKit benches measure
(the server's Python loop against the LiveKit SDK's own threads, which time.process_time
counts together)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path


def thread_ticks() -> dict[str, int]:
    """CPU ticks (user + system) of this process's threads so far, summed by thread name."""
    ticks: dict[str, int] = {}
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            ticks[name] = ticks.get(name, 0) + int(fields[11]) + int(fields[12])
    return ticks


@dataclass(frozen=True, slots=True)
class Window:
    cpu: float  # seconds of CPU, every thread
    wall: float  # seconds
    busiest: str  # the busiest threads' names and shares, for the report

    @property
    def percent(self) -> float:
        """Of one core."""
        return self.cpu / self.wall * 100


async def cpu_window(seconds: float, threads: int = 4) -> Window:
    """This process's CPU while the event loop sleeps `seconds` (the work runs meanwhile)."""
    cpu, wall, before = time.process_time(), time.perf_counter(), thread_ticks()
    await asyncio.sleep(seconds)
    cpu, wall, after = time.process_time() - cpu, time.perf_counter() - wall, thread_ticks()
    hz = os.sysconf("SC_CLK_TCK")
    top = sorted(((after[n] - before.get(n, 0), n) for n in after), reverse=True)[:threads]
    busiest = ", ".join(f"{name} {t / hz / wall * 100:.1f} %" for t, name in top)
    return Window(cpu=cpu, wall=wall, busiest=busiest)
