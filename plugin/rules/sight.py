"""Who may see whom and whose speech it is: the rules behind what the pages show.

Pure: no I/O, only the engine's state. The server's video relay enforces `may_link`; the
views (plugin/host/views.py) carry `speaking` and `video` built from here, so no page and
no simulated player keeps its own copy of the phase sets.

The night rule (docs/video.md, "the night rule"): by day everyone is awake; at the black
team's meeting (night zero) the black players and the host are; in every other night phase
nobody is (eyes closed). A pair may exchange video only while both are awake.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final, Literal

from .state import NIGHT_PHASES, SPEECH_PHASES, GameState, Phase

HOST: Final = "host"
Who = int | Literal["host"]  # a seat, or the live host


def awake(phase: Phase, who: Who, black: Collection[int]) -> bool:
    """Whether `who` may see and be seen in `phase`: everyone by day; at the black team's
    meeting the black players and the host; nobody else at night."""
    if phase not in NIGHT_PHASES:
        return True
    return phase is Phase.BLACK_MEETING and (who == HOST or who in black)


def may_link(phase: Phase, a: Who, b: Who, black: Collection[int]) -> bool:
    """Whether `a` and `b` may exchange video (and its signalling) in `phase`."""
    return a != b and awake(phase, a, black) and awake(phase, b, black)


def video_peers(phase: Phase, viewer: Who, black: Collection[int], seats: int) -> list[Who]:
    """Everyone `viewer` may exchange video with now, of `seats` seats and the host: the
    seats in order, then "host". Empty while `viewer` is asleep."""
    everyone: Iterable[Who] = (*range(1, seats + 1), HOST)
    return [other for other in everyone if may_link(phase, viewer, other, black)]


def black_seats(state: GameState) -> frozenset[int]:
    """The black team's seats (empty before the roles are dealt)."""
    return frozenset(seat for seat in range(1, state.players + 1) if state.is_black(seat))


def speech_of(state: GameState) -> int | None:
    """The seat whose speech (regular, defense, last word) is running, or None."""
    return state.speaker if state.phase in SPEECH_PHASES else None
