"""The host view's `controls` (plugin/host/views.py): the console actions the table would
accept now, asked the way the table asks, so the console disables the rest (issue 17)."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings

from plugin.host import views
from plugin.host.views import build_view
from plugin.rules import apply
from plugin.rules import events as ev
from plugin.rules.legal import always_legal
from plugin.rules.state import GameState

from ..games import PRESETS, SEEDS, first_state, picks, played
from .test_views import lobby, snapshot


def controls(state: GameState, **changes: object) -> list[str]:
    return build_view(dataclasses.replace(snapshot(state), **changes), "host")["controls"]


def test_in_the_lobby_the_host_may_start_and_choose_manual_mode() -> None:
    assert "next" in controls(lobby())
    assert "manual" in controls(lobby())  # the engine takes SetManual before the start
    for kind in ("pause", "undo", "foul", "end_speech", "add_time"):
        assert kind not in controls(lobby()), kind


def test_a_running_game_offers_the_corrections_and_the_next_step() -> None:
    state, _ = apply(lobby(), ev.StartGame())
    timer = state.timer.id if state.timer else None
    found = controls(state, timer_id=timer, timer_remaining=10.0)
    for kind in ("next", "pause", "foul", "remove", "disqualify", "end_game", "undo"):
        assert kind in found, (kind, found)
    assert "resume" not in found
    paused = controls(state, paused=True, timer_id=timer, timer_remaining=10.0)
    assert "resume" in paused and "pause" not in paused
    if timer is not None:
        assert "add_time" in found


def test_after_the_game_only_the_next_game_remains() -> None:
    state, _ = apply(lobby(), ev.StartGame())
    over, _ = apply(state, ev.EndGame(winner="city"))
    assert over.over
    assert controls(over) == ["next_game"]
    # Once the host started it, the next game is at its own table: nothing is left here.
    assert controls(over, successor="abc") == []
    assert "next_game" not in controls(state)  # not before the end


def test_only_the_host_gets_controls() -> None:
    for viewer in (None, 1, 10):
        assert "controls" not in build_view(snapshot(lobby()), viewer)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=PRESETS, seed=SEEDS, choices=picks(min_size=10, max_size=200))
def test_the_consoles_engine_controls_need_no_seats_events(
    preset: str, seed: int, choices: list[int]
) -> None:
    """The console's engine actions (next, end_speech, end_game, manual) are decided from
    the events legal now without the thirty seat corrections always_legal lists (building
    and hashing them at every change was the host view's largest part): with them or
    without, every answer is the same, in every state a game goes through."""
    states = [first_state(preset, seed), *(state for _, state in played(preset, seed, choices))]
    for state in states:
        with_seats = views._host_events(state) | set(always_legal(state))
        without = views._host_events(state)
        for control in views._engine_controls(state):
            assert views._legal(state, control, with_seats) == views._legal(state, control, without)
