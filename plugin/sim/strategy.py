"""What a simulated player does, decided from the view its seat sees (and nothing else).

Simple strategies, random among what the view says is possible, and deterministic for a
seed: the same views in the same order give the same moves. Each decision is made once
(keyed by the day, round or timer it belongs to), so a view sent again after a reconnect
or a tally change does not make the bot act twice.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from plugin.rules import state as rules_state

# The speech phases by name. Kept for plugin/sim/player.py, which imports it; new code asks
# the view (`is_speech_of`). Derived from the rules, never copied by hand.
SPEECH_PHASES = frozenset(phase.value for phase in rules_state.SPEECH_PHASES)
NOMINATE_CHANCE = 0.6


def is_speech_of(view: dict[str, Any], seat: int) -> bool:
    """Whether the speech running in this view is `seat`'s (the view's `speaking`)."""
    return (view.get("speaking") or {}).get("speaker") == seat


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """One thing to do: a protocol message (`type`, `fields`) after `delay` seconds, or
    `type="say"`: speak the bot's line into its microphone now."""

    type: str
    fields: dict[str, Any] = field(default_factory=dict)
    delay: float = 0.0


class Strategy:
    """A seat's simple strategy. `speech_seconds`: how long the bot talks before passing;
    `think_seconds`: the longest it waits before voting or acting at night."""

    def __init__(
        self, seat: int, seed: int, *, speech_seconds: float = 3.0, think_seconds: float = 1.0
    ) -> None:
        self.seat = seat
        self.rng = random.Random(seed * 1009 + seat)
        self.speech_seconds = speech_seconds
        self.think_seconds = think_seconds
        self._done: set[tuple[Any, ...]] = set()
        self._intent: dict[tuple[Any, ...], int] = {}  # round -> the candidate chosen for it

    def moves(self, view: dict[str, Any]) -> list[Move]:
        """The moves this view calls for that were not decided before."""
        me = view.get("me") or {}
        if me.get("seat") != self.seat or view.get("over"):
            return []
        found: list[Move] = []
        found += self._speech(view, me)
        found += self._vote(view, me)
        found += self._night(view, me)
        return found

    # -- one decision each ----------------------------------------------------------------

    def _once(self, key: tuple[Any, ...]) -> bool:
        if key in self._done:
            return False
        self._done.add(key)
        return True

    def _think(self) -> float:
        return round(self.rng.uniform(0.1, max(0.1, self.think_seconds)), 3)

    def _speech(self, view: dict[str, Any], me: dict[str, Any]) -> list[Move]:
        if not is_speech_of(view, self.seat):
            return []
        phase = view.get("phase")  # a speech's key: the defense after a speech is another
        timer = (view.get("timer") or {}).get("id")
        if not self._once(("speech", view.get("day"), phase, timer)):
            return []
        moves = [Move(type="say")]
        early = round(self.speech_seconds * 0.4, 3)  # mid-speech, well before the pass
        # may_nominate: in the view only in his own regular speech, before he has nominated.
        if me.get("may_nominate") and self.rng.random() < NOMINATE_CHANCE:
            taken = {target for _, target in view.get("nominations") or []}
            choices = [s for s in view.get("alive", []) if s != self.seat and s not in taken]
            if choices:
                target = self.rng.choice(choices)
                moves.append(Move(type="nominate", fields={"target": target}, delay=early))
        if me.get("action") == "best_move":
            others = [s for s in view.get("alive", []) if s != self.seat]
            picks = sorted(self.rng.sample(others, min(3, len(others))))
            moves.append(Move(type="best_move", fields={"seats": picks}, delay=early))
        moves.append(Move(type="pass", delay=self.speech_seconds))
        return moves

    def _vote(self, view: dict[str, Any], me: dict[str, Any]) -> list[Move]:
        vote = view.get("vote") or {}
        round_ = vote.get("round")
        if not round_ or not round_.get("open") or not me.get("can_vote"):
            return []
        if self.seat not in round_.get("waiting", []):
            return []  # voted already ("voters" are those who may vote in this round)
        key = ("vote", view.get("day"), round_.get("number"), round_.get("kind"))
        if round_.get("kind") == "lift":
            if not self._once(key):
                return []
            return [
                Move(type="lift", fields={"leave": self.rng.random() < 0.5}, delay=self._think())
            ]
        candidates = [c for c in round_.get("candidates", []) if c != self.seat]
        if not candidates:
            return []
        if key not in self._intent:
            self._intent[key] = self.rng.choice(candidates)
        choice = self._intent[key]
        calling = round_.get("calling")
        if calling is not None and calling != choice:
            return []  # sequential voting: a vote is cast when its candidate is called
        if not self._once(key):
            return []
        return [Move(type="vote", fields={"candidate": choice}, delay=self._think())]

    def _night(self, view: dict[str, Any], me: dict[str, Any]) -> list[Move]:
        action = me.get("action")
        if action not in ("shoot", "don_check", "sheriff_check"):
            return []
        if not self._once((action, view.get("night"), view.get("day"))):
            return []
        alive = [s for s in view.get("alive", []) if s != self.seat]
        if action == "shoot":
            team = set(me.get("black_team") or [])
            alive = [s for s in alive if s not in team] or alive
        if not alive:
            return []
        return [Move(type=action, fields={"target": self.rng.choice(alive)}, delay=self._think())]
