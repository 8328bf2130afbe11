"""What a viewer's view adds to the engine's (plugin/host/views.py): the table's meta and
the pages' `speaking` and `video`, without telling a red player who is black."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from plugin.host.game import new_game
from plugin.host.ports import Snapshot
from plugin.host.settings import TableSettings
from plugin.host.views import Viewer, build_view
from plugin.rules import apply
from plugin.rules import events as ev
from plugin.rules.state import GameState, Phase

ROLES = {"1": "don", "2": "mafia", "3": "mafia", "4": "sheriff"}
SETTINGS = TableSettings.from_record({"preset": "online", "seats": 10, "roles": ROLES})
EVERYONE: list[Any] = [*range(1, 11), "host"]


def snapshot(state: GameState) -> Snapshot:
    return Snapshot(
        table_id="t1", version=state.version, state=state, settings=SETTINGS,
        timer_id=None, timer_remaining=None, paused=False, present=frozenset(),
    )  # fmt: skip


def lobby() -> GameState:
    return new_game(SETTINGS)


def view_of(state: GameState, viewer: Viewer) -> dict[str, Any]:
    return build_view(snapshot(state), viewer)


def test_in_the_lobby_everyone_may_exchange_video_with_everyone() -> None:
    for viewer in EVERYONE:
        video = view_of(lobby(), viewer)["video"]
        peers = [w for w in EVERYONE if w != viewer]
        assert video == {"awake": True, "peers": peers, "spectators": True}


def test_at_the_black_meeting_only_the_black_team_and_the_host_see_each_other() -> None:
    state, _ = apply(lobby(), ev.StartGame())
    assert state.phase is Phase.BLACK_MEETING
    no_fans = {"spectators": False}
    # Nobody sends to the spectators: their faces at the meeting would tell who is black.
    asleep = {"awake": False, "peers": [], "spectators": False}
    assert view_of(state, 1)["video"] == {"awake": True, "peers": [2, 3, "host"], **no_fans}
    assert view_of(state, "host")["video"] == {"awake": True, "peers": [1, 2, 3], **no_fans}
    for red in (4, 5, 10):
        assert view_of(state, red)["video"] == asleep
    assert view_of(state, None)["video"] == asleep  # a spectator
    assert view_of(state, "stream")["video"] == asleep  # the stream overlay


@pytest.mark.parametrize("phase", list(Phase))
def test_a_red_players_video_never_tells_who_is_black(phase: Phase) -> None:
    state = dataclasses.replace(lobby(), phase=phase)
    for red in range(4, 11):
        peers = view_of(state, red)["video"]["peers"]
        assert peers in ([], [w for w in EVERYONE if w != red]), (phase, red, peers)


def test_speaking_names_the_speech_and_the_open_microphones() -> None:
    speech = dataclasses.replace(lobby(), phase=Phase.SPEECH, speaker=3, speakers=frozenset({3}))
    for viewer in (3, 5, "host", None):
        assert view_of(speech, viewer)["speaking"] == {"speaker": 3, "seats": [3]}
    final = dataclasses.replace(lobby(), phase=Phase.FINAL_MINUTE, speakers=frozenset({1, 2}))
    assert view_of(final, 4)["speaking"] == {"speaker": None, "seats": [1, 2]}
    voting = dataclasses.replace(speech, phase=Phase.VOTING, speakers=frozenset())
    assert view_of(voting, 4)["speaking"] == {"speaker": None, "seats": []}


def test_the_engines_fields_stay_beside_the_new_ones() -> None:
    view = view_of(lobby(), 5)
    for field in ("phase", "speaker", "speakers", "me", "table", "clock", "you"):
        assert field in view
    assert view["you"] == 5 and view["table"]["seats"] == 10
