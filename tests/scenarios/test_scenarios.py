"""Whole-game and single-vote scenarios, run through the real `autohost scenario` command.

Every `*.json` here is a scenario (shared/conformance/README.md and GAME.md) whose `expect`
was derived from the rules by hand, never copied from the engine's output. The comparison
is the contract's: objects key by key (extra keys in the result are fine), lists element by
element with the same length, and only the top-level `announcements` as a subsequence.

Files under `invalid/` must be refused: exit code 2 and one line on stderr that contains
the file's `expect_error`. (They are not for the shared runner: give it `tests/scenarios/*.json`.)

Where the engine disagrees with the rules as we read them, the scenario is listed in
DISAGREEMENTS: it runs as a strict xfail, so it fails loudly once the engine is fixed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCENARIOS = sorted(HERE.glob("*.json"))
INVALID = sorted(f for f in (HERE / "invalid").iterdir() if f.suffix in (".json", ".txt"))

# A file that is not JSON cannot carry its own expect_error (named .txt so that the shared
# conformance runner, which reads every *.json below a folder, does not choke on it).
UNPARSABLE_ERRORS = {
    "not_json.txt": "not valid JSON",
    "settings_defense_infinity.txt": "Infinity",  # not JSON: non-finite numbers are refused
    "players_five_thousand_digits.txt": "5000 digits",
}

# scenario file name -> why we believe the engine is wrong (strict xfail).
DISAGREEMENTS: dict[str, str] = {}


def run_cli(file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plugin.cli", "scenario", str(file)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )


def is_subsequence(expected: list[Any], actual: list[Any]) -> bool:
    remaining = iter(actual)
    return all(any(item == got for got in remaining) for item in expected)


def mismatch(expected: Any, actual: Any, path: str = "$") -> str | None:
    """The first difference between `expect` and the result, or None when they match."""
    if path == "$.announcements":
        if not isinstance(actual, list) or not is_subsequence(expected, actual):
            return f"{path}: expected in order {expected}, got {actual}"
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key}: missing"
            found = mismatch(value, actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected {expected}, got {actual}"
        for index, (want, got) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(want, got, f"{path}[{index}]")
            if found:
                return found
        return None
    # JSON: 1 == true in Python, but not in a scenario.
    if expected != actual or type(expected) is not type(actual):
        return f"{path}: expected {expected!r}, got {actual!r}"
    return None


def _marks(file: Path) -> list[pytest.MarkDecorator]:
    reason = DISAGREEMENTS.get(file.name)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


# ---- the comparison itself must be able to fail --------------------------------------------


def test_mismatch_semantics() -> None:
    assert mismatch({"a": [1, 2]}, {"a": [1, 2], "b": 3}) is None
    assert mismatch({"a": [1, 2]}, {"a": [1, 2, 3]}) is not None  # same length
    assert mismatch({"a": {"x": 1}}, {"a": {}}) == "$.a.x: missing"
    assert mismatch({"announcements": ["a", "c"]}, {"announcements": ["a", "b", "c"]}) is None
    assert mismatch({"announcements": ["c", "a"]}, {"announcements": ["a", "b", "c"]}) is not None
    # only the top level is a subsequence
    assert mismatch({"v": {"announcements": ["a"]}}, {"v": {"announcements": ["a", "b"]}})
    assert mismatch({"killed": None}, {"killed": 0}) is not None
    assert mismatch({"black": True}, {"black": 1}) is not None


def test_there_are_enough_scenarios() -> None:
    games = [f for f in SCENARIOS if json.loads(f.read_text("utf-8")).get("kind") == "game"]
    votes = [f for f in SCENARIOS if f not in games]
    assert len(games) >= 24 and len(votes) >= 8 and len(INVALID) >= 1


# ---- scenarios ------------------------------------------------------------------------------


@pytest.mark.parametrize("file", [pytest.param(f, id=f.stem, marks=_marks(f)) for f in SCENARIOS])
def test_scenario(file: Path) -> None:
    scenario = json.loads(file.read_text(encoding="utf-8"))
    done = run_cli(file)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    problem = mismatch(scenario["expect"], result)
    assert problem is None, f"{scenario['name']}: {problem}"


@pytest.mark.parametrize("file", [pytest.param(f, id=f.stem) for f in INVALID])
def test_invalid_scenario_is_refused(file: Path) -> None:
    if file.suffix == ".txt":  # not strict JSON: it cannot carry its own expect_error
        expected = UNPARSABLE_ERRORS[file.name]
    else:
        expected = json.loads(file.read_text(encoding="utf-8"))["expect_error"]
    done = run_cli(file)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert expected in lines[0], lines[0]
