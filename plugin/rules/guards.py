"""May this seat do this now? One predicate per kind of act (python-chess `is_legal`).

The phase is the transition table's question (machine.py `ACCEPTS`); these answer the rest
for a phase that accepts the event. Each returns the refusal (an IllegalAction, or for the
hottest ones a reason code that `refusal` words) or None when the act is allowed; reasons
are the conformance codes where one exists. The handlers raise the refusal and
`legal_actions` lists what gets None, so the two never disagree.
"""

from __future__ import annotations

from .errors import IllegalAction
from .modes import Choice, RoundKind, VotingMode
from .state import SPEECH_PHASES, GameState, Phase

_LIFT = RoundKind.LIFT
_SEQUENTIAL = VotingMode.SEQUENTIAL


# The hottest guards (every ballot, every seat a speaker might nominate, and what
# `legal_actions` lists) answer with a reason code; `refusal` words it only when raised.
MESSAGES = {
    "not_your_speech": "seat {by} nominates only during his own speech",
    "already_nominated_today": "seat {by} has nominated today",
    "not_in_game": "seat {target} is not in the game",
    "already_nominated": "seat {target} is already nominated",
    "closed_round": "no vote is open now",
    "not_eligible": "seat {voter} may not vote in this round",
    "duplicate": "seat {voter} has already voted in this round",
    "no_abstention": "abstaining is not allowed by these rules",
    "not_candidate": "seat {candidate} is not a candidate",
    "self_vote": "seat {voter} may not vote for himself",
    "closed": "the vote for seat {candidate} is over",
    "not_open": "the vote for seat {candidate} has not started",
    "closed_lift": "no lift vote is open now",
    "not_eligible_lift": "seat {voter} may not vote on the lift question",
    "duplicate_lift": "seat {voter} has already voted on the lift question",
}


def refusal(code: str, **context: object) -> IllegalAction:
    """The IllegalAction for a guard's reason code (`closed_round` is reported `closed`)."""
    reason = code.split("_lift")[0] if code.endswith("_lift") else code
    reason = "closed" if reason == "closed_round" else reason
    return IllegalAction(reason, MESSAGES[code].format(**context))


def nomination(s: GameState, by: int, target: int) -> str | None:
    """GAME.md: a nomination counts only during the nominator's own speech, at most one per
    player per day, and only of a seat in the game not already nominated that day."""
    if s.phase is not Phase.SPEECH or s.speaker != by:
        return "not_your_speech"
    day = s.days[-1]
    for nominator, _ in day.nominations:
        if nominator == by:
            return "already_nominated_today"
    if target not in s.alive:
        return "not_in_game"
    for _, nominee in day.nominations:
        if nominee == target:
            return "already_nominated"
    return None


def passing(s: GameState, seat: int) -> IllegalAction | None:
    """The running speech's speaker (or the host for him) may end it early."""
    if s.phase not in SPEECH_PHASES or s.speaker != seat:
        return IllegalAction("not_speaking", f"seat {seat} is not speaking now")
    return None


def ballot(s: GameState, voter: int, candidate: int | None) -> str | None:
    """A ballot in the open round. The order of checks is the voting contract's:
    not_eligible, duplicate, not_candidate, self_vote."""
    vote = s.vote
    r = vote.round if vote is not None else None
    if s.phase is not Phase.VOTING or r is None or r.kind is _LIFT:
        return "closed_round"
    if voter not in r.voters or voter not in s.alive:
        return "not_eligible"
    if voter in r.voted_seats:
        return "duplicate"
    rules = s.rules
    if candidate is None:
        return None if rules.abstention_allowed else "no_abstention"
    if candidate not in r.candidates:
        return "not_candidate"
    if candidate == voter and not rules.self_vote_allowed:
        return "self_vote"
    if rules.voting_mode is _SEQUENTIAL:
        # Seed 000: candidate by candidate; a hand after «Спасибо» is not counted.
        position = r.candidates.index(candidate)
        if position < r.window:
            return "closed"
        if position > r.window:
            return "not_open"
    return None


def lift_ballot(s: GameState, voter: int) -> str | None:
    """A ballot on the lift question (seed 000: «Кто «ЗА» то, чтобы все голосуемые покинули
    игру?»)."""
    vote = s.vote
    r = vote.round if vote is not None else None
    if s.phase is not Phase.VOTING or r is None or r.kind is not _LIFT:
        return "closed_lift"
    if voter not in r.voters or voter not in s.alive:
        return "not_eligible_lift"
    if voter in r.voted_seats:
        return "duplicate_lift"
    return None


def shot(s: GameState, by: int) -> IllegalAction | None:
    """Only a black player in the game shoots. A second shot is recorded, not refused:
    GAME.md counts every shot, mafiaratings 8.7 makes it a miss (night.py)."""
    if s.phase is not Phase.SHOT:
        return IllegalAction("not_now", "the mafia shoots only at the night's shot")
    if by not in s.alive or not s.is_black(by):
        return IllegalAction("not_black", f"seat {by} is not a black player in the game")
    return None


def check(s: GameState, role: str) -> IllegalAction | None:
    """The don's or the sheriff's one check a night (mafiaratings 8.15). A dead checker's
    turn still takes its time but accepts nothing (GAME.md)."""
    phase = Phase.DON_CHECK if role == "don" else Phase.SHERIFF_CHECK
    if s.phase is not phase:
        return IllegalAction("not_now", f"the {role}'s check is not now")
    checker = s.seat_of(role)
    if checker is None or checker not in s.alive:
        return IllegalAction("not_in_game", f"the {role} is not in the game")
    night = s.nights[-1]
    if (night.don_check if role == "don" else night.sheriff_check) is not None:
        return IllegalAction("duplicate", f"the {role} has already checked tonight")
    return None


def best_move(s: GameState, by: int) -> IllegalAction | None:
    """The first victim names three black seats during his morning last word (8.17)."""
    if not s.best_move_open or s.speaker != by:
        return IllegalAction("not_now", f"seat {by} has no best move now")
    return None


def host_choice(s: GameState, choice: Choice) -> IllegalAction | None:
    """The live host answers the open dialog, or starts the revote after the speeches."""
    if s.phase is Phase.AWAIT_REVOTE:
        if choice is not Choice.START_REVOTE:
            return IllegalAction(
                "not_offered",
                f"{choice!s}: the defense speeches are over; the live host starts the revote "
                "now (start_revote), nothing else",
            )
        return None
    dialog = s.dialog
    if s.phase is not Phase.DIALOG or dialog is None:
        return IllegalAction("not_now", f"{choice!s}: {why_no_dialog(s)}")
    if choice is not Choice.CLOSE and choice not in dialog.options:
        return IllegalAction(
            "not_offered", f"{choice!s} is not offered by the {dialog.kind} dialog"
        )
    return None


def why_no_dialog(s: GameState) -> str:
    """Why the live host has nothing to choose now, in words he can act on."""
    rules = s.rules
    if not s.manual:
        return "no dialog is open: the bot hosts this table (manual mode is off)"
    if not (rules.tie_dialog_options or rules.repeat_tie_dialog_options):
        revote = (
            "; he starts the revote after the defense speeches (start_revote)"
            if rules.host_starts_revote
            else ""
        )
        return (
            f"no dialog is open: the {rules.name} rules fix the tie procedure and ask the "
            f"live host nothing at a tie{revote}"
        )
    return f"no dialog is open now ({s.phase.value}); the tie dialog opens at a tie"
