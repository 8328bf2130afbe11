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
