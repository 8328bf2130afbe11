"""What the benchmarks (and the load tests) compute from their samples."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The sample at quantile `q` (0..1) of `values`, nearest rank: p99 of 300 samples is
    the 297th smallest. Raises IndexError on no samples."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
