"""`autohost scenario`: a valid file prints one JSON object; an invalid one exits 2 with
one line on stderr naming the problem."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

VALID = {
    "rules": "online",
    "players": 10,
    "nominations": [4, 8],
    "inputs": [{"votes": [[1, 4], [2, 4], [3, 8]]}],
}


def run(tmp_path: Path, content: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "s.json"
    path.write_text(content, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "plugin.cli", "scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_valid(tmp_path: Path) -> None:
    done = run(tmp_path, json.dumps(VALID))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["eliminated"] == [4] and result["next"] == "night"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (None, "not valid JSON"),
        ({"players": "ten"}, "players"),
        ({"rules": "chess"}, "chess"),
        ({"nominations": [4, 11]}, "outside the table"),
        ({"inputs": [{"votes": [[1, 40]]}]}, "outside the table"),
        ({"inputs": [{"dance": 1}]}, "dance"),
        ({"host": "robot"}, "host"),
        ({"settings": {"defense_seconds": -5}}, "defense_seconds"),
        ({"kind": "game", "roles": {"1": "don"}}, "roles"),
    ],
)
def test_invalid(tmp_path: Path, change: dict | None, words: str) -> None:
    content = "{not json" if change is None else json.dumps({**VALID, **change})
    done = run(tmp_path, content)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]
    assert done.stdout == ""


GAME = {"kind": "game", "rules": "online", "players": 10}


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("\ufeff{}", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        (
            '{"rules": "online", "players": 10, "inputs": ' + "[" * 40 + "]" * 40 + "}",
            "nests deeper",
        ),
        ('{"rules": "online", "players": ' + "7" * 5000 + "}", "5000 digits"),
        ('{"rules": "online", "players": 10, "seed": ' + "7" * 400 + "}", "400 digits"),
        (json.dumps({**GAME, "roles": {"²": "don"}}), "not a seat number"),
        (json.dumps({**GAME, "inputs": [{"until": "day ²"}]}), "until"),
        (json.dumps({**GAME, "inputs": [{"leave": "²"}]}), "integer"),
        ('{"rules": "online", "players": NaN}', "NaN"),
        (
            '{"rules": "online", "players": 10, "settings": {"defense_seconds": Infinity}}',
            "Infinity",
        ),
        ('{"rules": "online", "players": 10, "settings": {"defense_seconds": 1e999}}', "too large"),
        (json.dumps({**VALID, "settings": {"defense_seconds": 10**400}}), "too large"),
        (
            json.dumps({**VALID, "settings": {"read_candidates_times": 10**9}}),
            "read_candidates_times",
        ),
        (
            json.dumps({**VALID, "settings": {"tie_dialog_options": ["speeches", "x"]}}),
            "tie_dialog",
        ),
        (json.dumps({**VALID, "settings": {"defense_seconds": [30]}}), "defense_seconds"),
        (json.dumps({**VALID, "settings": []}), "settings"),
        (json.dumps({**VALID, "inputs": {"votes": []}}), "inputs"),
        (json.dumps({**VALID, "inputs": [{"votes": [[1, 4.0]]}]}), "integer"),
        (json.dumps({**VALID, "inputs": [{"votes": [[True, 4]]}]}), "integer"),
        (json.dumps({**VALID, "inputs": [{"host": ["speeches"]}]}), "host"),
        (json.dumps({**VALID, "day": "1"}), "day"),
        (json.dumps({**VALID, "name": 5}), "name"),
        (json.dumps({**VALID, "expect": []}), "expect"),
        (json.dumps({**VALID, "rules": ["online"]}), "rules"),
        (json.dumps({**VALID, "rules": "on\nline"}), "preset"),
        (json.dumps({**GAME, "roles": {"1": ["don"]}}), "role"),
        (json.dumps(GAME), "roles"),  # GAME.md: no roles, no black team: refused
    ],
)
def test_malformed_files_exit_2_with_one_line(tmp_path: Path, content: str, words: str) -> None:
    """Bug (issue 18): a 5,000-digit number, deep nesting or "²" for a seat exited 1 with
    a traceback, and NaN settings could print Infinity on stdout."""
    done = run(tmp_path, content)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-300:]
    assert len(lines) == 1 and words in lines[0], lines
    assert done.stdout == ""
