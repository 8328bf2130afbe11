"""Who may see whom and whose speech it is (plugin/rules/sight.py), as rule tables."""

from __future__ import annotations

import dataclasses

import pytest

from plugin.rules import apply, load_preset, new_game, sight
from plugin.rules import events as ev
from plugin.rules.state import GameState, Phase

BLACK = frozenset({1, 2, 3})
DAY = [p for p in Phase if p.value in ("lobby", "speech", "voting", "defense", "over")]
DARK = [Phase.DON_MEETING, Phase.SHERIFF_MEETING, Phase.FREE_SEATING, Phase.SHOT,
        Phase.DON_CHECK, Phase.SHERIFF_CHECK]  # fmt: skip


def game() -> GameState:
    rules = load_preset("online")
    return new_game(rules, players=10, roles={1: "don", 2: "mafia", 3: "mafia", 4: "sheriff"})


@pytest.mark.parametrize("phase", DAY)
def test_by_day_everyone_sees_everyone(phase: Phase) -> None:
    assert sight.video_peers(phase, 5, BLACK, 10) == [1, 2, 3, 4, 6, 7, 8, 9, 10, "host"]
    assert sight.video_peers(phase, "host", BLACK, 10) == list(range(1, 11))


def test_at_the_black_meeting_the_black_team_and_the_host_see_each_other_only() -> None:
    meeting = Phase.BLACK_MEETING
    assert sight.video_peers(meeting, 1, BLACK, 10) == [2, 3, "host"]
    assert sight.video_peers(meeting, "host", BLACK, 10) == [1, 2, 3]
    assert sight.video_peers(meeting, 4, BLACK, 10) == []
    assert not sight.awake(meeting, 4, BLACK) and sight.awake(meeting, "host", BLACK)


@pytest.mark.parametrize("phase", DARK)
def test_in_the_rest_of_the_night_nobody_sees_anyone(phase: Phase) -> None:
    for who in (1, 4, 5, "host"):
        assert not sight.awake(phase, who, BLACK)
        assert sight.video_peers(phase, who, BLACK, 10) == []


def test_nobody_links_with_himself() -> None:
    assert not sight.may_link(Phase.SPEECH, 3, 3, BLACK)
    assert not sight.may_link(Phase.SPEECH, "host", "host", BLACK)


def test_black_seats_come_from_the_roles() -> None:
    assert sight.black_seats(game()) == BLACK


@pytest.mark.parametrize(
    ("phase", "speech"),
    [(Phase.SPEECH, 3), (Phase.DEFENSE, 3), (Phase.LAST_WORD, 3),
     (Phase.MORNING_LAST_WORD, 3), (Phase.VOTING, None), (Phase.BEFORE_VOTE, None),
     (Phase.SHOT, None), (Phase.FINAL_MINUTE, None)],
)  # fmt: skip
def test_a_speech_is_the_speakers_only_in_a_speech_phase(phase: Phase, speech: int | None) -> None:
    state = dataclasses.replace(game(), phase=phase, speaker=3, speakers=frozenset({3}))
    assert sight.speech_of(state) == speech


def test_no_speech_at_night_zero() -> None:
    state, _ = apply(game(), ev.StartGame())
    assert state.phase is Phase.BLACK_MEETING and sight.speech_of(state) is None
