"""Scenario files (shared/conformance/README.md and GAME.md): the format, read and checked.

A scenario drives the real engine: inputs go in at the first moment they become legal,
and timers run out one by one in between (the runner is the clock). No I/O here; the CLI
reads the file.
"""

from __future__ import annotations

import json
import reprlib
from dataclasses import dataclass, field
from typing import Any

from plugin.rules.errors import InvalidAction
from plugin.rules.modes import Choice
from plugin.rules.roles import DISTRIBUTION, check_roles
from plugin.rules.settings import load_preset

VOTE_INPUTS = ("votes", "lift", "host", "leave")
GAME_INPUTS = (
    *VOTE_INPUTS,
    "until",
    "nominate",
    "pass",
    "foul",
    "shots",
    "don_check",
    "sheriff_check",
    "best_move",
)
CHOICES = tuple(choice.value for choice in Choice)
MAX_STEPS = 200_000
MAX_DEPTH = 32  # no scenario nests deeper than a handful of levels
MAX_BYTES = 10_000_000


class ScenarioError(InvalidAction):
    """The scenario file itself is wrong (exit 2)."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_scenario", message)


# ---- reading a file --------------------------------------------------------------------

_SHOW = reprlib.Repr()
_SHOW.maxlevel, _SHOW.maxstring, _SHOW.maxlong, _SHOW.maxother = 2, 40, 24, 40
_SHOW.maxlist = _SHOW.maxdict = 4


def show(value: Any) -> str:
    """A short one-line picture of a value for a message (never a 5,000-digit number)."""
    return _SHOW.repr(value)


def _no_constant(name: str) -> Any:
    raise ScenarioError(f"{name} is not a JSON number (non-finite numbers are not allowed)")


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ScenarioError(f"the number {text[:24]} is too large")
    return number


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > 30:  # no seat or count needs more digits
        raise ScenarioError(f"the number {text[:24]}… has {len(text)} digits; too large")
    return int(text)


def _depth(document: Any) -> int:
    """How deeply the document nests (iterative: a deep file never recurses)."""
    deepest, stack = 0, [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                break
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return deepest


def load(data: bytes) -> Scenario:
    """Read and validate a scenario file's bytes; ScenarioError names the first problem.

    Anything malformed is refused here, never raised as something else: bytes that are not
    UTF-8 or not JSON, an empty file, NaN and Infinity, numbers too large (a 5,000-digit
    integer), nesting too deep (arrays 100,000 deep), wrong types anywhere (parse)."""
    if not data.strip():
        raise ScenarioError("the file is empty")
    if len(data) > MAX_BYTES:
        raise ScenarioError(f"the file is over {MAX_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"not valid JSON: not UTF-8 at byte {error.start}") from None
    try:
        document = json.loads(
            text, parse_constant=_no_constant, parse_float=_finite, parse_int=_whole
        )
    except json.JSONDecodeError as error:
        raise ScenarioError(f"not valid JSON: {error}") from None
    except RecursionError:
        raise ScenarioError(f"not valid JSON: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # a number Python will not convert
        raise ScenarioError(f"not valid JSON: {show(str(error))}") from None
    if _depth(document) > MAX_DEPTH:
        raise ScenarioError(f"the file nests deeper than {MAX_DEPTH} levels")
    return parse(document)


# ---- validation ------------------------------------------------------------------------


def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ScenarioError(f"{where} must be an integer, got {show(value)}")
    return value


def _seat(value: Any, players: int, where: str) -> int:
    seat = _int(value, where)
    if not 1 <= seat <= players:
        raise ScenarioError(f"{where}: seat {seat} is outside the table (1..{players})")
    return seat


def _seats(value: Any, players: int, where: str) -> list[int]:
    if not isinstance(value, list):
        raise ScenarioError(f"{where} must be a list of seats, got {show(value)}")
    return [_seat(item, players, f"{where}[{i}]") for i, item in enumerate(value)]


def _pairs(value: Any, where: str) -> list[list[Any]]:
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
        raise ScenarioError(f"{where} must be a list of [a, b] pairs, got {show(value)}")
    return value


def _check_input(item: Any, index: int, players: int, allowed: tuple[str, ...]) -> dict[str, Any]:
    where = f"inputs[{index}]"
    if not isinstance(item, dict) or len(item) != 1:
        raise ScenarioError(f"{where} must be an object with exactly one key, got {show(item)}")
    ((key, value),) = item.items()
    if key not in allowed:
        raise ScenarioError(f"{where}: unknown input {show(key)} (one of {', '.join(allowed)})")
    if key == "votes":
        for i, (voter, candidate) in enumerate(_pairs(value, f"{where}.votes")):
            _seat(voter, players, f"{where}.votes[{i}] voter")
            if candidate is not None:
                _seat(candidate, players, f"{where}.votes[{i}] candidate")
    elif key == "lift":
        for i, (voter, leave) in enumerate(_pairs(value, f"{where}.lift")):
            _seat(voter, players, f"{where}.lift[{i}] voter")
            if not isinstance(leave, bool):
                raise ScenarioError(f"{where}.lift[{i}]: the ballot must be true or false")
    elif key == "host":
        if not isinstance(value, str) or value not in CHOICES:
            raise ScenarioError(f"{where}.host must be one of {list(CHOICES)}, got {show(value)}")
    elif key in ("leave", "foul", "pass", "don_check", "sheriff_check"):
        _seat(value, players, f"{where}.{key}")
    elif key == "nominate":
        if not isinstance(value, list) or len(value) != 2:
            raise ScenarioError(f"{where}.nominate must be [by, target], got {show(value)}")
        _seats(value, players, f"{where}.nominate")
    elif key == "shots":
        for i, pair in enumerate(_pairs(value, f"{where}.shots")):
            _seats(pair, players, f"{where}.shots[{i}]")
    elif key == "best_move":
        named = _seats(value, players, f"{where}.best_move")
        if len(named) != 3 or len(set(named)) != 3:
            raise ScenarioError(f"{where}.best_move must name three different seats")
    elif key == "until":
        until_period(value, where)
    return {key: value}


def until_period(value: Any, where: str) -> int:
    parts = value.split() if isinstance(value, str) else []
    if (
        len(parts) != 2
        or parts[0] not in ("day", "night")
        or not (parts[1].isascii() and parts[1].isdigit() and len(parts[1]) <= 4)
    ):
        raise ScenarioError(f'{where}.until must be "day N" or "night N", got {show(value)}')
    number = int(parts[1])
    if parts[0] == "day" and number < 1:
        raise ScenarioError(f"{where}.until: days count from 1")
    return 2 * number - 1 if parts[0] == "day" else 2 * number


@dataclass(slots=True)
class Scenario:
    kind: str
    rules: Any
    players: int
    manual: bool
    inputs: list[dict[str, Any]]
    out: list[int] = field(default_factory=list)
    nominations: list[int] = field(default_factory=list)
    roles: dict[int, str] | None = None
    day: int = 1


def parse(doc: Any) -> Scenario:
    """Validate a scenario document; ScenarioError names the first problem."""
    if not isinstance(doc, dict):
        raise ScenarioError("a scenario must be a JSON object")
    kind = doc.get("kind", "vote")
    if kind not in ("vote", "game"):
        raise ScenarioError(f'kind must be "vote" or "game", got {show(kind)}')
    if "name" in doc and not isinstance(doc["name"], str):
        raise ScenarioError("name must be a string")
    if "rules" not in doc:
        raise ScenarioError("missing field 'rules'")
    preset = doc["rules"]
    if not isinstance(preset, str):
        raise ScenarioError(f"rules must be a preset name, got {show(preset)}")
    settings = doc.get("settings", {})
    if not isinstance(settings, dict):
        raise ScenarioError("settings must be an object")
    try:
        rules = load_preset(preset, settings)
    except InvalidAction as error:
        raise ScenarioError(error.message) from None
    host = doc.get("host", "auto")
    if host not in ("auto", "manual"):
        raise ScenarioError(f'host must be "auto" or "manual", got {show(host)}')
    if "players" not in doc:
        raise ScenarioError("missing field 'players'")
    players = _int(doc["players"], "players")
    if kind == "game" and players not in DISTRIBUTION:
        raise ScenarioError(f"players must be {min(DISTRIBUTION)} to {max(DISTRIBUTION)}")
    if kind == "vote" and not 2 <= players <= 30:
        raise ScenarioError("players must be 2 to 30")
    inputs = doc.get("inputs", [])
    if not isinstance(inputs, list):
        raise ScenarioError("inputs must be a list")
    if "expect" in doc and not isinstance(doc["expect"], dict):
        raise ScenarioError("expect must be an object")
    allowed = GAME_INPUTS if kind == "game" else VOTE_INPUTS
    checked = [_check_input(item, i, players, allowed) for i, item in enumerate(inputs)]
    scenario = Scenario(
        kind=kind, rules=rules, players=players, manual=host == "manual", inputs=checked
    )
    if kind == "vote":
        scenario.out = _seats(doc.get("out", []), players, "out")
        scenario.nominations = _seats(doc.get("nominations", []), players, "nominations")
        if len(set(scenario.nominations)) != len(scenario.nominations):
            raise ScenarioError("nominations: a seat is nominated twice")
        if set(scenario.nominations) & set(scenario.out):
            raise ScenarioError("nominations: a nominated seat is already out")
        scenario.day = _int(doc.get("day", 1), "day")
        if not 1 <= scenario.day <= 1000:
            raise ScenarioError("day must be 1..1000")
    else:
        # GAME.md: "Seats not named in `roles` are civilians" and "a file whose roles do
        # not fit the table is refused": a game without roles has no black team.
        if "roles" not in doc:
            raise ScenarioError("missing field 'roles' (the black seats and the sheriff)")
        roles = doc["roles"]
        if not isinstance(roles, dict):
            raise ScenarioError("roles must be an object of seat -> role")
        parsed: dict[int, str] = {}
        for key, role in roles.items():
            if not (key.isascii() and key.isdigit() and len(key) <= 3):
                raise ScenarioError(f"roles: {show(key)} is not a seat number")
            parsed[_seat(int(key), players, "roles")] = role
        try:
            check_roles(players, parsed)
        except InvalidAction as error:
            raise ScenarioError(error.message) from None
        scenario.roles = parsed
    return scenario
