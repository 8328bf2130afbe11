"""The layers' arrows point down only (ARCHITECTURE.md, "Layers").

    paths, bodies ← rules, signing ← host ← rooms, eventlog, voice, web, protocol ← sim, club ←
    tournament ← server ← cli, testing (scenario files sit beside protocol, above the engine)

Every module's imports are read from its source (module level, inside functions and under
TYPE_CHECKING alike); a module may import its own layer's package and the layers below it,
never a peer of its own rank or anything above. The rules also stay free of the clock, the
event loop and randomness (STYLE.md, rule 1).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Layer -> rank. An import must go to a strictly lower rank (or stay inside its own layer).
RANKS: dict[str, int] = {
    "plugin.paths": 0,
    "plugin.bodies": 0,
    "plugin.tasks": 0,
    "plugin.rules": 1,
    "plugin.scoring": 1,
    "plugin.seating": 1,
    "plugin.signing": 1,
    "plugin.host": 2,
    "plugin.rooms": 3,
    # The event log: one core over two stores (SQLite, PostgreSQL), implementing the host's
    # Log and Leases ports, like the rooms theirs; only the assembly picks a store.
    "plugin.eventlog": 3,
    "plugin.web": 3,
    "plugin.protocol": 3,
    "plugin.scenario": 3,
    "voice": 3,
    "plugin.sim": 4,
    # The club (issue 33): roster, links, judges' sheets, standings; above the tables, the
    # web and the log it keeps its records in; the assembly mounts its routes.
    "plugin.club": 4,
    # Tournaments (issue 34): records in the club's log, over its roster and the seating.
    "plugin.tournament": 5,
    "plugin.server": 6,
    "plugin.cli": 7,
    "testing": 7,
}
# What the pure engine must never import (it gets time and seeds as data).
RULES_FORBIDDEN = ("asyncio", "time", "random", "starlette", "aiortc", "livekit", "uvicorn")
# The seating is pure too, but draws from random.Random(seed): the seed is its data.
SEATING_FORBIDDEN = tuple(name for name in RULES_FORBIDDEN if name != "random")


@dataclass(frozen=True, slots=True)
class Arrow:
    source: str  # the importing module
    target: str  # the imported module
    line: int

    def __str__(self) -> str:
        return f"{self.source} (line {self.line}) imports {self.target}"


def layer_of(module: str) -> str | None:
    """The layer a module belongs to: the longest RANKS key it starts with."""
    found = [name for name in RANKS if module == name or module.startswith(name + ".")]
    return max(found, key=len) if found else None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, *, is_package: bool) -> list[Arrow]:
    """Every import in `source` (the code of `module`), relative ones resolved."""
    arrows: list[Arrow] = []
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            arrows += [Arrow(module, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            arrows.append(Arrow(module, target, node.lineno))
            # `from plugin import paths` imports plugin.paths, not the package plugin.
            arrows += [
                Arrow(module, f"{target}.{alias.name}", node.lineno)
                for alias in node.names
                if layer_of(f"{target}.{alias.name}") and not layer_of(target)
            ]
    return arrows


def wrong_arrows(arrows: list[Arrow]) -> list[Arrow]:
    """The arrows that point sideways or up."""
    wrong = []
    for arrow in arrows:
        source, target = layer_of(arrow.source), layer_of(arrow.target)
        if source is None or target is None or source == target:
            continue
        if RANKS[target] >= RANKS[source]:
            wrong.append(arrow)
    return wrong


def project_modules() -> list[tuple[Path, str]]:
    paths = sorted([*ROOT.glob("plugin/**/*.py"), *ROOT.glob("voice/**/*.py")])
    return [(path, module_name(path)) for path in paths if "node_modules" not in path.parts]


def all_arrows() -> list[Arrow]:
    arrows: list[Arrow] = []
    for path, module in project_modules():
        source = path.read_text(encoding="utf-8")
        arrows += imports_of(source, module, is_package=path.name == "__init__.py")
    return arrows


def test_every_module_belongs_to_a_layer() -> None:
    homeless = [module for _, module in project_modules() if layer_of(module) is None]
    assert homeless in ([], ["plugin"]), f"modules in no layer (add them to RANKS): {homeless}"


def test_arrows_point_down_only() -> None:
    wrong = wrong_arrows(all_arrows())
    assert not wrong, "imports against the layers:\n" + "\n".join(map(str, wrong))


def test_the_rules_use_no_clock_loop_or_randomness() -> None:
    found = [
        arrow
        for arrow in all_arrows()
        if layer_of(arrow.source) == "plugin.rules"
        and arrow.target.split(".")[0] in RULES_FORBIDDEN
    ]
    assert not found, "the engine must stay pure:\n" + "\n".join(map(str, found))


def test_the_seating_uses_no_clock_or_loop() -> None:
    found = [
        arrow
        for arrow in all_arrows()
        if layer_of(arrow.source) == "plugin.seating"
        and arrow.target.split(".")[0] in SEATING_FORBIDDEN
    ]
    assert not found, "the seating must stay pure:\n" + "\n".join(map(str, found))


def test_nothing_in_the_product_imports_the_test_tools() -> None:
    found = [
        arrow
        for arrow in all_arrows()
        if layer_of(arrow.target) == "testing" and layer_of(arrow.source) != "testing"
    ]
    assert not found, "\n".join(map(str, found))


def test_tests_never_import_the_benchmarks() -> None:
    found = []
    for path in sorted(ROOT.glob("tests/**/*.py")):
        module = module_name(path)
        for arrow in imports_of(path.read_text(encoding="utf-8"), module, is_package=False):
            if arrow.target == "bench" or arrow.target.startswith("bench."):
                found.append(arrow)
    assert not found, "\n".join(map(str, found))


# The checker itself: each of these lines, put in the module on the left, is a wrong arrow.
@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("plugin.host.table", "from plugin.web.app import Server"),
        ("plugin.host.table", "from plugin.rooms.embedded import EmbeddedRoom"),
        ("plugin.host.registry", "import voice.announcer"),
        ("plugin.rules.machine", "from plugin.host.settings import TableSettings"),
        ("plugin.rooms.livekit.tokens", "from plugin.web.app import create_app"),
        ("plugin.web.app", "from plugin.rooms.embedded.room import EmbeddedRoom"),
        ("plugin.web.pages", "from plugin.server import build"),
        ("plugin.server.assembly", "from plugin.cli import main"),
        ("plugin.rules.settings", "from plugin import signing"),
        ("plugin.web.hub", "from ..server import http"),
        ("plugin.host.registry", "from plugin.eventlog import open_log"),
        ("plugin.web.app", "from plugin.eventlog.sqlite import SqliteStore"),
        ("plugin.eventlog.core", "from plugin.web.app import Server"),
    ],
)
def test_the_checker_catches_a_wrong_arrow(module: str, line: str) -> None:
    arrows = imports_of(f"def later():\n    {line}\n", module, is_package=False)
    assert wrong_arrows(arrows), f"{line!r} in {module} should be refused"


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("plugin.host.table", "from plugin.rules import apply"),
        ("plugin.web.app", "from plugin.host.table import Table"),
        ("plugin.server.assembly", "from plugin.web.app import create_app"),
        ("plugin.cli.serve", "from plugin.server import run"),
        ("voice.phrases", "from plugin import paths"),
        ("plugin.host.table", "from .ports import Hub"),
    ],
)
def test_the_checker_allows_a_downward_arrow(module: str, line: str) -> None:
    assert not wrong_arrows(imports_of(line + "\n", module, is_package=False))
