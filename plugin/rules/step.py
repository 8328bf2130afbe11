"""The step under construction: a working copy of the state plus the effects made so far.

`apply` (machine.py) copies the state shallowly into a `Step`; the parts of the game
(day.py, voting.py, ties.py, night.py, removals.py, ending.py) assign new immutable values
to its attributes and append effects, so the caller's state never changes, even when a
check deep inside refuses the event.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .effects import Announce, Effect, SetSpeakers, StartTimer, StopTimer
from .records import positional
from .settings import Rules
from .state import GameState, Phase, Round, Timer, VoteState, replace_day, replace_night

# The effects made on almost every event, built without a keyword call (records.py).
_announce = positional(Announce)
_start_timer = positional(StartTimer)
_set_speakers = positional(SetSpeakers)
_new_tuple = tuple.__new__


class Step:
    """A working copy of the state plus the effects produced so far."""

    __slots__ = ("effects", "rules", "s")

    s: GameState
    rules: Rules
    effects: list[Effect]

    def say(self, key: str, **params: Any) -> None:
        self.effects.append(_announce(key, params))
        vote = self.s.vote
        if vote is not None and vote.outcome is None:
            vote.announced += (key,)

    def timer(self, seconds: float, purpose: str, warn: bool = False) -> None:
        s = self.s
        number = s.next_timer
        s.timer = _new_tuple(Timer, (number, seconds, purpose))  # skips NamedTuple's __new__
        s.next_timer = number + 1
        warn_at = self.rules.warn_at_seconds
        if not warn or seconds <= warn_at:
            warn_at = 0
        self.effects.append(_start_timer(number, seconds, purpose, warn_at))

    def wait(self) -> None:
        """No timer: the next step waits for a person."""
        if self.s.timer is not None:
            self.s.timer = None
            self.effects.append(StopTimer())

    def speakers(self, seats: Iterable[int]) -> None:
        chosen = frozenset(seats)
        if chosen != self.s.speakers:
            self.s.speakers = chosen
            self.effects.append(_set_speakers(chosen))

    def silence(self) -> None:
        self.s.speaker = None
        self.speakers(())

    def speech(self, phase: Phase, seat: int, seconds: float, purpose: str, key: str) -> None:
        self.s.phase = phase
        self.s.speaker = seat
        self.speakers((seat,))
        self.say(key, seat=seat)
        self.timer(seconds, purpose, warn=True)


def num(value: float) -> int | float:
    """Seconds as the result shows them: 30, not 30.0."""
    return int(value) if float(value).is_integer() else value


def today(s: GameState, **changes: Any) -> None:
    """Update the record of the current day (a copy: the old state keeps its record)."""
    s.days = (*s.days[:-1], replace_day(s.days[-1], **changes))


def tonight(s: GameState, **changes: Any) -> None:
    """Update the record of the current night (a copy, like `today`)."""
    s.nights = (*s.nights[:-1], replace_night(s.nights[-1], **changes))


def vote_of(st: Step) -> VoteState:
    vote = st.s.vote
    assert vote is not None, "no vote procedure is running"
    return vote


def round_of(st: Step) -> Round:
    r = vote_of(st).round
    assert r is not None, "no round is open"
    return r
