"""A property over whole simulated games (plugin.sim.simulate): nothing secret ever reaches a
spectator's view (issue 17): no role, no check, no black team, no night action (a shot, a
check, the night's victim before the morning), at any step of any game, until the game
is over, when the roles are everyone's, and so is the end screen (plugin.host.ending),
which no view carries before the end. The stream overlay's view is the same while the host
does not stream with roles; while he does, a secret reaches the overlay only once the delay
has passed since it happened, and a watch spectator's view stays as it was."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.host.ending import end_view
from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.host.stream import StateHistory, StreamView
from plugin.host.views import STREAM, Viewer, build_view
from plugin.rules import apply, new_game
from plugin.rules.events import Disqualify, Foul, PlayerLeft, to_record
from plugin.rules.roles import BLACK
from plugin.rules.state import NIGHT_PHASES, GameState, Phase
from plugin.sim.simulate import _preset, play

ROLE_NAMES = frozenset({"don", "mafia", "sheriff", "civilian", "black", "red", *BLACK})
PRIVATE_KEYS = frozenset(
    {"me", "checks", "shots", "shot", "black_team", "action", "controls", "best_move", "checker"}
)
AFTER_THE_SHOT = (Phase.DON_CHECK, Phase.SHERIFF_CHECK)


def spectator_view(
    state: GameState,
    seats: int,
    viewer: Viewer = None,
    stream: StreamView | None = None,
    ending: dict[str, Any] | None = None,
) -> dict[str, Any]:
    table = TableSettings(seats=seats)
    snapshot = Snapshot(
        table_id="t", version=state.version, state=state, settings=table,
        timer_id=None if state.timer is None else state.timer.id,
        timer_remaining=None, paused=False, present=frozenset(), stream=stream,
        ending=ending,
    )  # fmt: skip
    return json.loads(json.dumps(build_view(snapshot, viewer)))  # what the wire carries


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
        view = spectator_view(state, players, ending=ending)
        overlay = spectator_view(state, players, STREAM, ending=ending)  # no stream with roles
        assert overlay.pop("stream") is None and overlay["you"] == STREAM
        assert {**overlay, "you": None} == view
        if state.over:
            assert set(view["roles"].values()) <= ROLE_NAMES  # the end: everyone's
            assert view["end"] == ending and len(view["end"]["seats"]) == players
            assert [s["role"] for s in view["end"]["seats"]] == list(state.roles or ())
            continue
        assert view["end"] is None
        assert leaks(view) == [], (step, event, state.phase)
        assert view["you"] is None and not view["video"]["awake"]
        assert not view["video"]["spectators"]
        # Everyone by day, nobody at night (the black team's meeting included).
        everyone: list[int | str] = [*range(1, players + 1), "host"]
        assert view["video"]["peers"] == ([] if state.phase in NIGHT_PHASES else everyone)
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


def secrets_of(view: dict[str, Any]) -> set[tuple[Any, ...]]:
    """Every secret a host's view or an overlay's `stream` field names, as comparable items."""
    found: set[tuple[Any, ...]] = set()
    found |= {("role", seat, role) for seat, role in view.get("roles", {}).items()}
    found |= {("check", json.dumps(check, sort_keys=True)) for check in view.get("checks", [])}
    found |= {("shot", tuple(shot)) for shot in view.get("shots", [])}
    return found


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(["online", "classic", "fiim"]),
    seed=st.integers(min_value=0, max_value=10**6),
    players=st.sampled_from([7, 10]),
    delay=st.sampled_from([0, 7, 45, 600]),
)
def test_with_stream_with_roles_nothing_reaches_the_overlay_before_its_delay(
    rules: str, seed: int, players: int, delay: int
) -> None:
    game = play(rules, seed, players=players, keep_log=True)
    assert game.log is not None and game.error is None, game
    gaps = random.Random(seed)
    state = new_game(_preset(rules), players=players, seed=seed)
    history, now = StateHistory(), 0.0
    history.record(now, state)
    first_seen = dict.fromkeys(secrets_of(spectator_view(state, players, "host")), now)
    shown: set[tuple[Any, ...]] = set()
    for event in game.log:
        state, _ = apply(state, event)
        now += gaps.uniform(0.0, 40.0)
        history.record(now, state)
        host = spectator_view(state, players, "host")
        for item in secrets_of(host):
            first_seen.setdefault(item, now)
        # A moment between this change and the next, as a refresh would see it.
        moment = now + gaps.uniform(0.0, 40.0)
        stream = StreamView(delay=delay, delayed=history.as_of(moment - delay))
        overlay = spectator_view(state, players, STREAM, stream)["stream"]
        assert overlay["delay"] == delay
        for item in secrets_of(overlay):
            assert first_seen[item] + delay <= moment, (item, first_seen[item], moment, delay)
            shown.add(item)
        if not state.over:  # the same snapshot's watch spectator: nothing secret, ever
            assert leaks(spectator_view(state, players, None, stream)) == []
    # The delay over, the overlay shows what the host saw: the property is not vacuous.
    late = StreamView(delay=delay, delayed=history.as_of(now + delay))
    final = secrets_of(spectator_view(state, players, STREAM, late)["stream"])
    assert final and final == secrets_of(spectator_view(state, players, "host"))


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.sampled_from([0.0, 0.5, 1.0, 7.0, 300.0, 601.0]), max_size=40),
    moments=st.lists(st.floats(-10, 5_000, allow_nan=False), min_size=1, max_size=10),
)
def test_the_history_finds_what_a_scan_of_every_state_finds(
    gaps: list[float], moments: list[float]
) -> None:
    """StateHistory's lookups (a bisection, the table reads them at every change) agree
    with a scan of the states it kept, and its newest state is the last one recorded."""
    history, now, kept = StateHistory(), 0.0, []
    state = new_game(_preset("fiim"), players=10, seed=1)
    assert history.latest() is None and history.as_of(1e9) is None
    for gap in gaps:
        now += gap
        state = dataclasses.replace(state, version=state.version + 1)  # a new state each
        history.record(now, state)
        kept = list(history._states)
        assert history.latest() is state
    for moment in moments:
        scan = [s for at, s in kept if at <= moment]
        assert history.as_of(moment) is (scan[-1] if scan else None)
        later = [at for at, _ in kept if at > moment]
        assert history.next_after(moment) == (later[0] if later else None)
