"""The lobby's bounds are named in one place (plugin/web/lobby_limits.py) and documented
with those names and values (docs/protocol.md, "Lobby limits"): a bound changed in code
and not in the docs fails here (issue 31)."""

from __future__ import annotations

import re
from fractions import Fraction

from plugin.paths import ROOT
from plugin.web import lobby_limits

ROW = re.compile(r"^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \| ([^|]+) \|", re.MULTILINE)


def documented() -> dict[str, Fraction]:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("### Lobby limits", 1)[1].split("\n## ", 1)[0]
    found: dict[str, Fraction] = {}
    for names, values in ROW.findall(section):
        keys = [name.strip("`") for name in names.split(", ")]
        numbers = [Fraction(value.strip()) for value in values.split(",")]
        assert len(keys) == len(numbers), (names, values)
        found.update(zip(keys, numbers, strict=True))
    return found


def test_every_lobby_bound_is_documented_with_its_value() -> None:
    named = {
        name: value
        for name, value in vars(lobby_limits).items()
        if name.isupper() and isinstance(value, int | float)
    }
    assert len(named) >= 14
    docs = documented()
    assert set(docs) == set(named)
    for name, value in named.items():
        assert float(docs[name]) == value, (name, docs[name], value)
