"""Every word the engine decides by, as an enum (a `StrEnum`: each member *is* its string).

Members compare equal to their strings and serialise as them, so the JSON views, the event
log and the scenario results keep exactly the words they had, and an old log replays. The
engine compares members by identity (`rules.voting_mode is VotingMode.SEQUENTIAL`).
"""

from __future__ import annotations

from enum import StrEnum


class VotingMode(StrEnum):
    SEQUENTIAL = "sequential"  # seed 000: candidate by candidate, in nomination order
    SIMULTANEOUS = "simultaneous"  # seed 004: everyone at once in the widget


class Voters(StrEnum):
    """Who votes in a revote or on the lift question."""

    ALL = "all"  # seed 004: «кандидати теж, але не проти себе»
    EXCLUDE_TIED = "exclude_tied"  # seed 000: «попавшие в автокатастрофу, не принимают участие»


class TieAgain(StrEnum):
    """What a revote that ties again does."""

    LIFT = "lift"  # seed 000: «Кто «ЗА» то, чтобы все голосуемые покинули игру?»
    NOBODY = "nobody"  # seed 004: «Друга нічия: ніхто не вибуває»
    REVOTE = "revote"  # mafiaratings 7.18: fewer tied candidates → another revote


class LiftPasses(StrEnum):
    MORE_FOR_THAN_AGAINST = "more_for_than_against"  # seed 000
    MORE_THAN_HALF_ALIVE = "more_than_half_alive"  # fiim


class SingleCandidate(StrEnum):
    WITHDRAWN = "withdrawn"  # seed 000: «снимается с голосования»
    VOTE = "vote"  # mafiaratings 7.16: from day 2 any number of candidates is voted on


class ZeroVotes(StrEnum):
    NOBODY = "nobody"  # shared/conformance: nobody raising a hand = the city chose nobody
    TIE = "tie"  # seed 000 read literally: 0 = 0 is a tie


class CandidateLeft(StrEnum):
    CANCEL = "cancel"  # seed 000: «оно не состоится и в Городе наступит Ночь»
    DROP = "drop"  # the vote goes on without him


class RemovalCancels(StrEnum):
    NOMINEE = "nominee"  # a removed player cancels the vote only as any leaving nominee does
    ANY = "any"  # mafiaratings 9.10: any removal cancels the closest or current vote


class BestMoveVictim(StrEnum):
    FIRST_KILLED = "first_killed"  # GAME.md: the first player killed at night in the game
    FIRST_NIGHT = "first_night"  # mafiaratings 8.17: only a victim of night 1


class ThirdFoul(StrEnum):
    SKIP = "skip"  # mafiaratings 9.5: the closest regular speech is lost, once
    SHORT = "short"  # 9.7: a shortened speech instead
    NONE = "none"


class Choice(StrEnum):
    """The live host's answers (seed 004: the «Нічия» and «Повторна нічия» windows)."""

    SPEECHES = "speeches"
    REVOTE = "revote"
    END = "end"
    CLOSE = "close"
    START_REVOTE = "start_revote"
    LIFT = "lift"


class DialogKind(StrEnum):
    TIE = "tie"
    REPEAT_TIE = "repeat_tie"


class RoundKind(StrEnum):
    VOTE = "vote"
    REVOTE = "revote"
    LIFT = "lift"


class VoteOutcome(StrEnum):
    """How a day's vote ended (shared/conformance/README.md «Result»)."""

    ELIMINATED = "eliminated"
    NOBODY = "nobody"
    WITHDRAWN = "withdrawn"
    CANCELLED = "cancelled"


class LeaveReason(StrEnum):
    """Why players leave the game (the PlayersOut effect)."""

    VOTE = "vote"
    KILLED = "killed"
    FOULS = "fouls"
    DISQUALIFIED = "disqualified"
    LEFT = "left"


class Winner(StrEnum):
    CITY = "city"
    MAFIA = "mafia"
    DRAW = "draw"


class Termination(StrEnum):
    """Why the game ended (python-chess `Termination`)."""

    NO_BLACK_LEFT = "no_black_left"  # mafiaratings 1.4: the city wins
    BLACK_PARITY = "black_parity"  # 1.4: black players at least as many as red ones
    QUIET_ROUNDS = "quiet_rounds"  # 1.5: three quiet nights and days, a draw
    HOST = "host"  # the host ended the game (with or without a result)
    VOTE_DONE = "vote_done"  # a single-vote scenario: the vote is over
