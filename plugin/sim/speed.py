"""Shorter timers for demos and tests: every timer of a preset divided by a speed factor.

The result is a dict of rule overrides (TableSettings.overrides, load_preset(..., overrides)),
so the rules stay the preset's and only their durations change (60 s speech at speed 10:
6 s; never under 1 s). A timer of 0 (switched off) stays 0.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from plugin.rules import load_preset


def scaled_timers(preset: str, speed: float) -> dict[str, Any]:
    """Overrides dividing each `*_seconds` setting of `preset` by `speed` (> 0)."""
    if not speed > 0:
        raise ValueError(f"speed must be a positive number, not {speed!r}")
    rules = load_preset(preset)
    overrides: dict[str, Any] = {}
    for spec in fields(rules):
        value = getattr(rules, spec.name)
        if spec.name.endswith("_seconds") and isinstance(value, int | float) and value > 0:
            # Whole seconds, at least 1: the engine refuses a float override for a setting
            # the preset's TOML wrote as an integer (with_overrides checks the current type).
            overrides[spec.name] = max(1, round(value / speed))
    return overrides
