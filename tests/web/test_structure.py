"""The web side's shape holds (issue 28): no import circle inside plugin/web, no module of it
over about 450 lines, and every WebSocket close code written once (plugin/web/close_codes.py)
with the values docs/protocol.md gives the pages."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from plugin.web.close_codes import CloseCode

from ..test_layers import ROOT, imports_of, module_name

WEB = ROOT / "plugin" / "web"
MAX_LINES = 450


def web_graph() -> dict[str, set[str]]:
    """plugin.web's modules and, for each, the modules of plugin.web it imports (at module
    level, inside functions and under TYPE_CHECKING alike)."""
    modules = {module_name(path): path for path in sorted(WEB.glob("*.py"))}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        arrows = imports_of(path.read_text(encoding="utf-8"), module, is_package=False)
        graph[module] = {a.target for a in arrows if a.target in modules and a.target != module}
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (its modules in order, the first repeated last), or None."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for target in sorted(graph.get(module, ())):
            found = visit(target, [*path, module])
            if found:
                return found
        done.add(module)
        return None

    for module in sorted(graph):
        found = visit(module, [])
        if found:
            return found
    return None


def test_no_import_circle_inside_plugin_web() -> None:
    graph = web_graph()
    assert "plugin.web.context" in graph and graph["plugin.web.app"], "the graph was not read"
    cycle = cycle_in(graph)
    assert cycle is None, "an import circle in plugin/web: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_circle() -> None:
    # lobby_socket.py once imported Server back from app.py, which imported lobby_socket.
    graph = web_graph()
    graph["plugin.web.context"] = {*graph["plugin.web.context"], "plugin.web.table_socket"}
    cycle = cycle_in(graph)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert {"plugin.web.context", "plugin.web.table_socket"} <= set(cycle)
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert cycle_in({"a": {"a.b"}, "a.b": {"a"}}) == ["a", "a.b", "a"]


def test_no_module_of_plugin_web_is_over_450_lines() -> None:
    lengths = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in WEB.glob("*.py")}
    assert lengths, "no modules found"
    long = {name: n for name, n in lengths.items() if n > MAX_LINES}
    assert not long, f"split these by concern: {long}"


def test_close_codes_are_the_documented_ones() -> None:
    """The enum is what goes on the wire: its values are the documented codes."""
    assert {code.name: int(code) for code in CloseCode} == {
        "ELSEWHERE": 1013,
        "UNAUTHORIZED": 4401,
        "FORBIDDEN_ORIGIN": 4403,
        "NO_TABLE": 4404,
        "REPLACED": 4409,
        "ENDED": 4410,
        "REMOVED": 4423,
        "TOO_MANY": 4429,
    }
    documented = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    for code in CloseCode:
        assert re.search(rf"\b{int(code)}\b", documented), f"{code!r} is not in docs/protocol.md"


def close_code_literals(path: Path) -> list[str]:
    """Where `path` writes a close code itself: a CLOSE_* name bound, or one of the codes
    as a bare number."""
    found = []
    codes = {int(code) for code in CloseCode}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name) and re.fullmatch(r"CLOSE_[A-Z_]+", node.id):
            found.append(f"{path.name}:{node.lineno} {node.id}")
        elif isinstance(node, ast.Constant) and type(node.value) is int and node.value in codes:
            found.append(f"{path.name}:{node.lineno} {node.value}")
    return found


def test_every_close_code_comes_from_the_enum() -> None:
    sources = [*ROOT.glob("plugin/**/*.py"), *ROOT.glob("testing/**/*.py")]
    sources = [p for p in sources if "node_modules" not in p.parts]
    assert len(sources) > 50
    found = [
        hit
        for path in sources
        if path != WEB / "close_codes.py"
        for hit in close_code_literals(path)
    ]
    assert not found, "use plugin.web.close_codes.CloseCode: " + ", ".join(found)


@pytest.mark.parametrize(
    "source", ["CLOSE_ENDED = 4410\n", "await ws.close(code=4404)\n", "x = {4401, 1013}\n"]
)
def test_the_close_code_check_finds_a_literal(tmp_path: Path, source: str) -> None:
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    assert close_code_literals(path)


def token_checks(path: Path) -> list[str]:
    """Where `path` checks a link token itself (`....signer.verify...(...)`) instead of
    through `Server.claim` / `Server.admit`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("verify", "verify_any", "verify_invite")
            and isinstance(node.value, ast.Attribute | ast.Name)
            and (node.value.attr if isinstance(node.value, ast.Attribute) else node.value.id)
            in ("signer", "_signer")
        ):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_token_is_checked_by_server_admit() -> None:
    sources = [p for p in ROOT.glob("plugin/**/*.py") if "node_modules" not in p.parts]
    # A personal link (issue 33) has its one check too, plugin.club.links.admit: it is no
    # table's link, and the command line checks it without a server; a tournament link
    # (issue 34) its own, plugin.tournament.links.admit, for the same reasons.
    checks = (WEB / "context.py", ROOT / "plugin" / "club" / "links.py",
              ROOT / "plugin" / "tournament" / "links.py")  # fmt: skip
    found = [hit for path in sources if path not in checks for hit in token_checks(path)]
    assert not found, "check tokens with Server.claim/Server.admit: " + ", ".join(found)
    assert token_checks(WEB / "context.py"), "the checker finds nothing, not even the one check"
