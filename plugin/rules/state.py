"""The engine's state: plain values, never mutated after `apply` returns them.

`apply` works on a shallow copy of the state (and of the vote inside it) and only ever
assigns new immutable values (tuples, frozensets, frozen records) to its attributes, so a
state a caller holds never changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, NamedTuple

from .errors import InvalidAction
from .modes import DialogKind, RoundKind, Termination, TieAgain, VoteOutcome, Winner
from .records import make_clone, make_replace, quick_init
from .roles import BLACK
from .roles import DISTRIBUTION as DISTRIBUTION  # re-exported: state.py held them before
from .roles import check_roles as check_roles
from .roles import deal_roles as deal_roles
from .settings import Rules


class Phase(Enum):
    # Members are singletons and compare by identity, so hash by identity too: Enum's own
    # __hash__ is Python code, and the engine looks a phase up in a table on every timer.
    __hash__ = object.__hash__

    LOBBY = "lobby"
    BLACK_MEETING = "black_meeting"  # night zero
    DON_MEETING = "don_meeting"
    SHERIFF_MEETING = "sheriff_meeting"
    FREE_SEATING = "free_seating"
    MORNING_LAST_WORD = "morning_last_word"  # the night's victim speaks
    SPEECH = "speech"  # regular day speeches
    BEFORE_VOTE = "before_vote"  # the discussion is over, the vote has not started
    VOTE_INTRO = "vote_intro"  # vote.start and the candidates read out
    VOTING = "voting"  # a round (vote, revote or lift) is open
    DEFENSE = "defense"  # a tied candidate speaks again
    REVOTE_PAUSE = "revote_pause"
    DIALOG = "dialog"  # the live host is asked (manual mode)
    AWAIT_REVOTE = "await_revote"  # manual: speeches done, the host starts the revote
    LAST_WORD = "last_word"  # after the vote
    SHOT = "shot"
    DON_CHECK = "don_check"
    SHERIFF_CHECK = "sheriff_check"
    FINAL_MINUTE = "final_minute"
    OVER = "over"


_OVER = Phase.OVER

NIGHT_PHASES = frozenset(
    {
        Phase.BLACK_MEETING,
        Phase.DON_MEETING,
        Phase.SHERIFF_MEETING,
        Phase.FREE_SEATING,
        Phase.SHOT,
        Phase.DON_CHECK,
        Phase.SHERIFF_CHECK,
    }
)
SPEECH_PHASES = frozenset({Phase.MORNING_LAST_WORD, Phase.SPEECH, Phase.DEFENSE, Phase.LAST_WORD})


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """The end of the game as one value (python-chess `Outcome`): why it ended and who won
    (None: no result, the host ended it, or a single-vote scenario is over)."""

    termination: Termination
    winner: Winner | None

    def record(self) -> dict[str, str | None]:
        return {"termination": self.termination, "winner": self.winner}


class Timer(NamedTuple):
    """The running timer (a tuple: one is made for almost every event)."""

    id: int
    seconds: float
    purpose: str


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Dialog:
    kind: DialogKind
    candidates: tuple[int, ...]
    options: tuple[str, ...]
    default: str


@dataclass(slots=True, kw_only=True)
class Round:
    """One round of the day vote: kind vote | revote | lift. Treat as immutable (the state's
    records are not frozen only because building a frozen record costs several times more,
    and a record is rebuilt on every ballot and every speech; records.py)."""

    number: int
    kind: RoundKind
    candidates: tuple[int, ...]
    voters: frozenset[int]
    ballots: tuple[tuple[int, int | None], ...] = ()  # accepted, in order received
    lift_ballots: tuple[tuple[int, bool], ...] = ()
    window: int = 0  # sequential voting: index of the candidate being called
    voted_seats: frozenset[int] = frozenset()

    def voted(self, seat: int) -> bool:
        return seat in self.voted_seats

    def with_ballot(self, voter: int, candidate: int | None) -> Round:
        """This round with one more accepted ballot (the hot path of a vote)."""
        new = _clone_round(self)
        new.ballots = (*self.ballots, (voter, candidate))
        new.voted_seats = self.voted_seats | {voter}
        return new

    def tally(self) -> dict[int, int]:
        counts = dict.fromkeys(self.candidates, 0)
        for _, candidate in self.ballots:
            if candidate is not None:
                counts[candidate] += 1
        return counts

    def lift_tally(self) -> tuple[int, int]:
        yes = sum(1 for _, leave in self.lift_ballots if leave)
        return yes, len(self.lift_ballots) - yes

    def leaders(self) -> tuple[int, ...]:
        """The candidates with the most votes (all of them at zero votes)."""
        counts = self.tally()
        top = max(counts.values(), default=0)
        return tuple(c for c in self.candidates if counts[c] == top)

    def record(self) -> dict[str, object]:
        """The conformance shape of a finished round."""
        if self.kind is RoundKind.LIFT:
            yes, no = self.lift_tally()
            tally: dict[str, int] = {"for": yes, "against": no}
        else:
            tally = {str(c): n for c, n in self.tally().items()}
        return {
            "kind": self.kind,
            "candidates": list(self.candidates),
            "voters": sorted(self.voters),
            "tally": tally,
        }


@dataclass(slots=True, kw_only=True)
class VoteState:
    """The day vote procedure (seed 000 «Голосование», «Автокатастрофа»; seed 004)."""

    nominations: tuple[int, ...]
    round: Round | None = None
    rounds: tuple[dict[str, object], ...] = ()
    speeches: tuple[dict[str, object], ...] = ()
    announced: tuple[str, ...] = ()
    queue: tuple[int, ...] = ()  # defense speakers or last words still to come
    tied: tuple[int, ...] = ()  # the candidates of the tie being resolved
    ties: int = 0  # how many ties so far in this procedure
    again: TieAgain = TieAgain.NOBODY  # what a repeated tie does if the host hands back control
    eliminated: tuple[int, ...] = ()
    outcome: VoteOutcome | None = None


@dataclass(slots=True, kw_only=True)
class DayRecord:
    """Treat as immutable, like Round."""

    day: int
    opener: int | None = None
    speakers: tuple[int, ...] = ()
    nominations: tuple[tuple[int, int], ...] = ()
    vote: dict[str, object] | None = None


@dataclass(slots=True, kw_only=True)
class NightRecord:
    """Treat as immutable, like Round."""

    night: int
    shots: tuple[tuple[int, int], ...] = ()
    killed: int | None = None
    don_check: tuple[int, bool] | None = None
    sheriff_check: tuple[int, bool] | None = None

    def record(self) -> dict[str, Any]:
        """The conformance shape of the night (GAME.md), also the game protocol's."""
        don, sheriff = self.don_check, self.sheriff_check
        return {
            "night": self.night,
            "killed": self.killed,
            "don_check": None if don is None else {"target": don[0], "sheriff": don[1]},
            "sheriff_check": None
            if sheriff is None
            else {"target": sheriff[0], "black": sheriff[1]},
        }


@dataclass(slots=True, kw_only=True)
class GameState:
    """Everything the engine knows about one table. Treat as immutable."""

    rules: Rules
    players: int
    roles: tuple[str, ...] | None  # by seat - 1; None in a single-vote scenario
    alive: frozenset[int]
    manual: bool = False
    phase: Phase = Phase.LOBBY
    day: int = 0
    night: int = 0
    timer: Timer | None = None
    next_timer: int = 1
    speakers: frozenset[int] = frozenset()
    speaker: int | None = None  # whose speech (any kind) is running
    speech_queue: tuple[int, ...] = ()  # regular speakers still to come today
    dialog: Dialog | None = None
    vote: VoteState | None = None
    fouls: tuple[int, ...] = ()
    skip_speech: frozenset[int] = frozenset()
    removed: tuple[int, ...] = ()
    cancel_next_vote: bool = False  # fiim 9.10: a removal cancels the closest vote
    days: tuple[DayRecord, ...] = ()
    nights: tuple[NightRecord, ...] = ()
    victim: int | None = None  # last night's kill, speaking in the morning
    first_killed: int | None = None
    left_on_day1: int = 0  # mafiaratings 8.17 takes the best move away when two or more did
    best_move: tuple[int, tuple[int, ...], int] | None = None
    period: int = 0  # 0 night zero, 2n-1 day n, 2n night n (the draw rule counts these)
    last_leave_period: int = 0
    # The end of the game: set once, when the result is known (ending.py). The phase then
    # is OVER, or FINAL_MINUTE first when the rules give a last speech (mafiaratings 8.19).
    outcome: Outcome | None = None
    checks: tuple[tuple[int, str, int, bool], ...] = ()  # (checker seat, kind, target, result)
    single_vote: bool = False
    version: int = 0

    # ---- questions about the state -------------------------------------------------
    @property
    def winner(self) -> Winner | None:
        """Who won (from `outcome`): city, mafia, draw, or None."""
        outcome = self.outcome
        return None if outcome is None else outcome.winner

    @property
    def over(self) -> bool:
        """The game accepts nothing more but SetManual (phase OVER, `outcome` set)."""
        return self.phase is _OVER

    def role(self, seat: int) -> str | None:
        return None if self.roles is None else self.roles[seat - 1]

    def is_black(self, seat: int) -> bool:
        return self.role(seat) in BLACK

    def best_move_record(self) -> dict[str, Any] | None:
        """The best move as GAME.md shows it: who named which seats, how many are black."""
        if self.best_move is None:
            return None
        by, named, correct = self.best_move
        return {"by": by, "named": list(named), "correct": correct}

    @property
    def best_move_open(self) -> bool:
        """May the speaker name three black seats now (his morning last word)?"""
        rules = self.rules
        return (
            rules.best_move
            and self.phase is Phase.MORNING_LAST_WORD
            and self.speaker is not None
            and self.speaker == self.first_killed
            and self.best_move is None
            # mafiaratings 8.17 «First night»: the morning of day 2 follows night 1.
            and (rules.best_move_victim == "first_killed" or self.day == 2)
            # 8.17: «A player is not entitled to a «legacy» if two or more players have
            # left the game on the first day.»
            and not 0 < rules.best_move_void_after_day1_leavers <= self.left_on_day1
        )

    @property
    def black_seats(self) -> frozenset[int]:
        """The seats dealt a black card (in the game or not)."""
        return _black_seats(self.roles)

    def seat_of(self, role: str) -> int | None:
        """The seat of the don or the sheriff (one each per table)."""
        return _role_seat(self.roles, role)

    @property
    def candidates(self) -> tuple[int, ...]:
        if self.vote is not None and self.vote.round is not None:
            return self.vote.round.candidates
        return ()

    @property
    def voters(self) -> frozenset[int]:
        """Who may still cast a ballot in the open round."""
        if self.phase is not Phase.VOTING or self.vote is None or self.vote.round is None:
            return frozenset()
        r = self.vote.round
        return frozenset(v for v in r.voters if v in self.alive and not r.voted(v))

    @property
    def tally(self) -> dict[int, int]:
        if self.vote is None or self.vote.round is None:
            return {}
        return self.vote.round.tally()

    @property
    def tied_top(self) -> tuple[int, ...]:
        """Candidates tied at the top of the live tally (seed 004: outlined in yellow while
        the vote is open); empty unless two or more lead with at least one vote."""
        if self.vote is None or self.vote.round is None or self.vote.round.kind is RoundKind.LIFT:
            return ()
        counts = self.vote.round.tally()
        top = max(counts.values(), default=0)
        leaders = tuple(c for c in self.vote.round.candidates if counts[c] == top)
        return leaders if top > 0 and len(leaders) > 1 else ()


replace_day = make_replace(DayRecord)
replace_night = make_replace(NightRecord)
replace_round = make_replace(Round)
_clone_round = make_clone(Round)
clone_state = make_clone(GameState)  # shallow: every attribute holds an immutable value
clone_vote = make_clone(VoteState)


@lru_cache(maxsize=256)
def _black_seats(roles: tuple[str, ...] | None) -> frozenset[int]:
    return frozenset(i + 1 for i, role in enumerate(roles or ()) if role in BLACK)


@lru_cache(maxsize=256)
def _role_seat(roles: tuple[str, ...] | None, role: str) -> int | None:
    if roles is None or role not in roles:
        return None
    return roles.index(role) + 1


def check_seat(state: GameState, seat: object, what: str = "seat") -> int:
    """A seat number of this table, or InvalidAction naming the input."""
    if type(seat) is not int or not 1 <= seat <= state.players:  # a bool is not a seat
        raise InvalidAction("bad_seat", f"{what} {seat!r} is not a seat of this table")
    return seat
