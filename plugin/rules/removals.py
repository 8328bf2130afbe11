"""Players leaving the game at any moment: leaving, fouls, disqualification, and what a
removal does to the vote.

Rules implemented here:
- GAME.md «Fouls»: the third foul costs the player his next regular speech that has not
  started yet (a speech under way goes on; mafiaratings 9.5); the fourth removes him at
  once, with no last word (9.9); so does a disqualification.
- A speech of a player who leaves ends at once; a nominee who leaves before the vote
  cancels it (seed 000 line 31, voting.py), also while the host is still announcing it
  and reading the candidates out (line 7: that comes «Перед голосованием»); one who leaves
  during the procedure stays on the ballot but gets no speech and casts no vote
  (shared/conformance README).
- mafiaratings 9.10 (fiim, `removal_cancels_vote = "any"`): a removal cancels the current
  vote, or the closest one (docs/scenarios.md says what «closest» means); one removal
  cancels at most one vote.
- mafiaratings 8.17: players who left on day 1 are counted (they can void the best move).
"""

from __future__ import annotations

from . import day, ending, voting
from . import events as ev
from .effects import CloseDialog, PlayersOut
from .errors import IllegalAction
from .modes import CandidateLeft, LeaveReason, RemovalCancels, ThirdFoul, VoteOutcome
from .state import SPEECH_PHASES, Phase, check_seat
from .step import Step


def leave(st: Step, seats: tuple[int, ...], reason: LeaveReason) -> None:
    """These seats are out of the game now; then the end of the game is checked."""
    s = st.s
    s.alive -= set(seats)
    s.last_leave_period = s.period
    if s.period == 1:
        s.left_on_day1 += len(seats)
    st.effects.append(PlayersOut(seats=seats, reason=reason))
    if s.speakers & set(seats):
        st.speakers(s.speakers - set(seats))
    ending.check_end(st)


def _out_of_turn(st: Step, seat: int) -> None:
    """After a player left at once: a speech of his that was running ends, and a vote whose
    candidate he was and which has not begun (its announcement) does not take place."""
    s = st.s
    if s.outcome is None and s.speaker == seat and s.phase in SPEECH_PHASES:
        st.wait()
        day.end_speech(st)
    vote = s.vote
    if (
        s.outcome is None
        and s.phase is Phase.VOTE_INTRO
        and vote is not None
        and vote.outcome is None
        and seat in vote.tied
        and st.rules.candidate_left_before_vote is CandidateLeft.CANCEL
    ):
        # Seed 000 line 7: «Перед голосованием Ведущий объявляет: ... Город приступает к
        # голосованию» and reads the candidates out: the vote itself has not begun, so
        # line 31 applies: «оно не состоится и в Городе наступит Ночь».
        st.wait()
        st.say("vote.cancelled", seat=seat)
        voting.finish_vote(st, VoteOutcome.CANCELLED)


def _player_in_game(st: Step, seat: object) -> int:
    s = st.s
    number = check_seat(s, seat)
    if number not in s.alive:
        raise IllegalAction("not_in_game", f"seat {number} is not in the game")
    return number


def on_leave(st: Step, event: ev.PlayerLeft) -> None:
    seat = _player_in_game(st, event.seat)
    st.say("player.left", seat=seat)
    leave(st, (seat,), LeaveReason.LEFT)
    _out_of_turn(st, seat)


def on_disqualify(st: Step, event: ev.Disqualify) -> None:
    seat = _player_in_game(st, event.seat)
    st.say("disqualified", seat=seat)
    leave(st, (seat,), LeaveReason.DISQUALIFIED)
    _removal_cancels_vote(st, seat)
    _out_of_turn(st, seat)


def _removal_cancels_vote(st: Step, seat: int) -> None:
    """mafiaratings 9.10 (anti-monster, first variant): a player removed by a fourth warning
    or a disqualification cancels the current vote, or else the closest one."""
    s = st.s
    if st.rules.removal_cancels_vote is not RemovalCancels.ANY:
        return
    if s.outcome is not None or s.single_vote:
        return
    vote = s.vote
    if vote is not None and vote.outcome is None and not vote.eliminated:
        if s.dialog is not None:
            s.dialog = None
            st.effects.append(CloseDialog())
        st.wait()
        st.say("vote.cancelled", seat=seat)
        voting.finish_vote(st, VoteOutcome.CANCELLED)
    else:
        # «after the result of the vote has been determined ... the next vote is canceled»;
        # voting.begin_vote uses it up.
        s.cancel_next_vote = True


def on_foul(st: Step, event: ev.Foul) -> None:
    s, rules = st.s, st.rules
    seat = _player_in_game(st, event.seat)
    count = s.fouls[seat - 1] + 1
    s.fouls = (*s.fouls[: seat - 1], count, *s.fouls[seat:])
    st.say("foul", seat=seat, count=count)
    if count >= rules.removal_fouls:
        # mafiaratings 9.9: the fourth foul removes the player at once, without a last word.
        st.say("foul.removed", seat=seat)
        s.removed += (seat,)
        leave(st, (seat,), LeaveReason.FOULS)
        _removal_cancels_vote(st, seat)
        _out_of_turn(st, seat)
    elif count == rules.removal_fouls - 1 and rules.third_foul is not ThirdFoul.NONE:
        # The next regular speech that has not started yet is lost (a speech under way
        # goes on).
        s.skip_speech |= {seat}
