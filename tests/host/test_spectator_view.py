"""A property over whole simulated games (plugin.sim.simulate): nothing secret ever reaches a
spectator's view (issue 17): no role, no check, no black team, no night action (a shot, a
check, the night's victim before the morning), at any step of any game, until the game
is over, when the roles are everyone's, and so is the end screen (plugin.host.ending),
which no view carries before the end."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.host.ending import end_view
from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.host.views import build_view
from plugin.rules import apply, new_game
from plugin.rules.events import Disqualify, Foul, PlayerLeft, to_record
from plugin.rules.roles import BLACK
from plugin.rules.state import GameState, Phase
from plugin.sim.simulate import _preset, play

ROLE_NAMES = frozenset({"don", "mafia", "sheriff", "civilian", "black", "red", *BLACK})
PRIVATE_KEYS = frozenset(
    {"me", "checks", "shots", "shot", "black_team", "action", "controls", "best_move", "checker"}
)
AFTER_THE_SHOT = (Phase.DON_CHECK, Phase.SHERIFF_CHECK)


def spectator_view(
    state: GameState, seats: int, ending: dict[str, Any] | None = None
) -> dict[str, Any]:
    table = TableSettings(seats=seats)
    snapshot = Snapshot(
        table_id="t", version=state.version, state=state, settings=table,
        timer_id=None if state.timer is None else state.timer.id,
        timer_remaining=None, paused=False, present=frozenset(), ending=ending,
    )  # fmt: skip
    return build_view(snapshot, None)


def leaks(view: Any, path: str = "") -> list[str]:
    """Where a view names something secret: a private key, or a role's name as a value."""
    found: list[str] = []
    if isinstance(view, dict):
        for key, value in view.items():
            if key in PRIVATE_KEYS or key == "roles":
                found.append(f"{path}.{key}")
            found += leaks(value, f"{path}.{key}")
    elif isinstance(view, list):
        for i, value in enumerate(view):
            found += leaks(value, f"{path}[{i}]")
    elif isinstance(view, str) and view in ROLE_NAMES:
        found.append(f"{path} = {view!r}")
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(["online", "classic", "fiim"]),
    seed=st.integers(min_value=0, max_value=10**6),
    players=st.sampled_from([7, 9, 10, 12]),
    manual=st.booleans(),
)
def test_nothing_secret_ever_reaches_a_spectator(
    rules: str, seed: int, players: int, manual: bool
) -> None:
    game = play(rules, seed, players=players, manual=manual, keep_log=True)
    assert game.log is not None and game.error is None, game
    # The end screen of the whole game, handed to the view at every step as a table that
    # computed it too early would: the view still shows it only once the game is over.
    table = TableSettings(preset=rules, seats=players, seed=seed, manual=manual)
    ending = end_view(table, [to_record(event) for event in game.log])
    state = new_game(_preset(rules), players=players, seed=seed, manual=manual)
    alive_at_the_shot: list[int] | None = None
    for step, event in enumerate(game.log):
        state, _ = apply(state, event)
        view = json.loads(json.dumps(spectator_view(state, players, ending)))  # the wire's
        if state.over:
            assert set(view["roles"].values()) <= ROLE_NAMES  # the end: everyone's
            assert view["end"] == ending and len(view["end"]["seats"]) == players
            assert [s["role"] for s in view["end"]["seats"]] == list(state.roles or ())
            continue
        assert view["end"] is None
        assert leaks(view) == [], (step, event, state.phase)
        assert view["you"] is None and view["video"] == {"awake": False, "peers": []}
        if state.phase is Phase.SHOT:
            alive_at_the_shot = view["alive"]
        if state.phase in AFTER_THE_SHOT and alive_at_the_shot is not None:
            # A player who leaves, is removed or disqualified at night leaves in public;
            # the night's kill is told in the morning: nobody else leaves the view at night.
            if isinstance(event, PlayerLeft | Foul | Disqualify):
                alive_at_the_shot = [s for s in alive_at_the_shot if s in view["alive"]]
            assert view["alive"] == alive_at_the_shot, (step, event)
        if state.phase in (Phase.SHOT, *AFTER_THE_SHOT):
            assert view["speakers"] == [] and view["speaking"]["seats"] == []


def test_the_check_finds_what_the_host_and_a_player_see() -> None:
    """The property can fail: the host's and a player's views of the same game leak."""
    game = play("online", 7, keep_log=True)
    assert game.log is not None
    state = new_game(_preset("online"), players=10, seed=7)
    state, _ = apply(state, game.log[0])  # the game starts: roles are dealt
    snapshot = Snapshot(
        table_id="t", version=state.version, state=state, settings=TableSettings(seats=10),
        timer_id=None, timer_remaining=None, paused=False, present=frozenset(),
    )  # fmt: skip
    assert ".roles" in leaks(build_view(snapshot, "host"))
    assert ".me" in leaks(build_view(snapshot, 1))
    assert leaks({"timer": {"purpose": "sheriff"}}) == [".timer.purpose = 'sheriff'"]
