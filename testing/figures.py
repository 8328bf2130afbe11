"""What the benchmarks (and the load tests) compute from their samples."""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The sample at quantile `q` (0..1) of `values`, nearest rank: p99 of 300 samples is
    the 297th smallest. Raises IndexError on no samples."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def print_latency_summary(name: str, samples: Sequence[float], *, count: str) -> None:
    """A latency benchmark's last lines: the machine's load, then (its last line, what
    bench/run reads) JSON {"load_average", count: how many, "<name>_s": the median,
    "<name>_max_s": the largest} (bench/restart_audio.py, bench/blip_audio.py)."""
    load = os.getloadavg()[0]
    print(f"machine load average (1 min) at the end: {load:.1f} on {os.cpu_count()} cores")
    summary = {
        "load_average": round(load, 1),
        count: len(samples),
        f"{name}_s": round(statistics.median(samples), 3),
        f"{name}_max_s": round(max(samples), 3),
    }
    print(json.dumps(summary))
