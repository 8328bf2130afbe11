"""Scoring systems are data: the shipped ones load, a broken file is refused by name."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from plugin import paths
from plugin.scoring import ScoringError, load_system, parse_system


def shipped() -> dict[str, Any]:
    return tomllib.loads((paths.CONFIG_DIR / "scoring" / "fiim.toml").read_text())


def test_every_shipped_system_loads_and_cites_its_source() -> None:
    for path in sorted((paths.CONFIG_DIR / "scoring").glob("*.toml")):
        system = load_system(path.stem)
        assert system.id == path.stem
        assert "mafiaratings" in path.read_text() or "source" in path.read_text()


def test_fiim_is_version_7_with_its_numbers() -> None:
    fiim = load_system("fiim")
    assert (fiim.version, fiim.win, fiim.best_move_three, fiim.best_move_two) == (7, 1, 0.7, 0.5)
    assert (fiim.removed, fiim.team_disqualified, fiim.ci_c, fiim.ci_share) == (
        -0.5,
        -0.7,
        0.5,
        0.4,
    )


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: d.pop("main"), "[main]"),
        (lambda d: d["main"].update(win="1"), "main.win"),
        (lambda d: d["main"].update(win=float("inf")), "main.win"),
        (lambda d: d["best_move"].update(roles=["civilian", "werewolf"]), "werewolf"),
        (lambda d: d["penalty"].update(removed_by=["late"]), "late"),
        (lambda d: d["ranking"].update(tie_breaks=["wins", "total"]), "tie_breaks"),
        (lambda d: d["ranking"].update(tie_breaks=["total", "height"]), "tie_breaks"),
        (lambda d: d["extra"].update(judge_min=0.5), "judge_min"),
        (lambda d: d["ci"].update(share=0), "share"),
        (lambda d: d.update(id="no such id!"), "id"),
    ],
)
def test_a_broken_system_is_refused_with_what_is_wrong(change: Any, fragment: str) -> None:
    document = shipped()
    change(document)
    with pytest.raises(ScoringError) as refused:
        parse_system(document)
    assert fragment in refused.value.message


def test_an_unknown_or_unreadable_system_is_named(tmp_path: Path) -> None:
    with pytest.raises(ScoringError, match="known: \\['fiim'\\]"):
        load_system("elo")
    with pytest.raises(ScoringError, match="no scoring system"):
        load_system("../fiim")
    (tmp_path / "bad.toml").write_text("name = [")
    with pytest.raises(ScoringError, match=r"bad\.toml"):
        load_system("bad", tmp_path)
