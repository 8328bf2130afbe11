"""Malformed scenario files and settings are refused, every time, with one clear message.

A property test feeds random bytes, random JSON and valid files with one part replaced by a
random value to the scenario loader, and random values to the settings loader: the answer
is a refusal (ScenarioError / InvalidAction), or a valid result that is strict JSON; never
another exception.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.rules import InvalidAction, Rules, load_preset, with_overrides
from plugin.rules.settings import check_setting
from plugin.scenario import ScenarioError, load, run

VALID_VOTE: dict[str, Any] = {
    "rules": "classic",
    "players": 10,
    "nominations": [4, 8],
    "inputs": [{"votes": [[1, 4], [2, 4], [3, 8]]}, {"leave": 5}],
    "expect": {},
}
VALID_GAME: dict[str, Any] = {
    "kind": "game",
    "rules": "fiim",
    "host": "manual",
    "players": 10,
    "roles": {"2": "don", "5": "mafia", "8": "mafia", "9": "sheriff"},
    "settings": {"defense_seconds": 20},
    "inputs": [
        {"nominate": [1, 4]},
        {"nominate": [2, 5]},
        {"votes": [[1, 4], [3, 5]]},
        {"shots": [[2, 1], [5, 1], [8, 1]]},
        {"don_check": 9},
        {"sheriff_check": 2},
        {"until": "day 2"},
    ],
}

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["²", "٣", "day ²", "night 1", "lift", "speeches", "classic", "game"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity go in as the literals


def refused_or_strict_json(data: bytes) -> None:
    try:
        scenario = load(data)
    except ScenarioError as error:
        assert error.message and "\n" not in error.message.strip()
        return
    result = run(scenario)
    json.dumps(result, allow_nan=False)  # no Infinity or NaN reaches stdout


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200))
def test_random_bytes_are_refused(data: bytes) -> None:
    try:
        load(data)
    except ScenarioError:
        return
    raise AssertionError(f"accepted {data!r}")


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_random_json_is_refused(document: Any) -> None:
    try:
        load(dumps(document))
    except ScenarioError as error:
        assert error.message
        return
    raise AssertionError(f"accepted {document!r}")


def paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found += paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += paths(value, (*prefix, index))
    return found


def replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = json.loads(json.dumps(document))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return copy


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([VALID_VOTE, VALID_GAME]), st.data())
def test_a_valid_file_with_one_part_replaced_is_refused_or_runs(base: Any, data: Any) -> None:
    path = data.draw(st.sampled_from(paths(base)))
    refused_or_strict_json(dumps(replaced(base, path, data.draw(json_values))))


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.one_of(st.sampled_from(sorted(Rules.__dataclass_fields__)), st.text(max_size=8)),
        json_values,
        max_size=3,
    )
)
def test_random_settings_are_refused_or_within_bounds(overrides: dict[str, Any]) -> None:
    try:
        rules = with_overrides(load_preset("online"), overrides)
    except InvalidAction as error:
        assert error.reason == "bad_setting" and "setting" in error.message
        return
    for name in overrides:
        value = getattr(rules, name)
        assert check_setting(name, value) == value
        if isinstance(value, float):
            assert math.isfinite(value) and 0 <= value <= 3600
