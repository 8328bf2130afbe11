"""The day vote: its start, the rounds and their ballots, the result, the last words.

Ties (defense speeches, revotes, the lift question, the live host's dialogs) are ties.py.

Rules implemented here:
- Seed 000 «Голосование» (lines 3-19): two or more candidates, one is withdrawn; «Город
  приступает к голосованию», the candidates read out twice, then candidate by candidate
  («Кто за то, чтобы нашу игру покинул игрок № …?», two seconds each); one ballot or an
  abstention, never for oneself; the most votes leaves with a 30-second last word.
- Seed 000 line 31: a nominee who left before the vote cancels it; during it, the city may
  still vote him out (he has no last word: shared/conformance README).
- Seed 004 lines 10, 22: nobody raising a hand → «місто нікого не обрало», night.
- mafiaratings 7.13 (fiim): a ballot not cast goes to the last candidate; 7.16: day 1 with
  one candidate has no vote; 9.10: a removal cancels the closest vote (the pending
  cancellation is used up by this day's procedure, whatever becomes of it).
- GAME.md: a vote's result is applied as a whole, then the game is checked; the draw rule
  (mafiaratings 1.5) is checked at the end of each day.
"""

from __future__ import annotations

from typing import Any

from . import ending, guards, night, removals, ties
from . import events as ev
from .effects import VoteFinished
from .modes import (
    CandidateLeft,
    LeaveReason,
    RoundKind,
    SingleCandidate,
    VoteOutcome,
    Voters,
    VotingMode,
    Winner,
    ZeroVotes,
)
from .state import Phase, Round, check_seat, replace_round
from .step import Step, num, round_of, today, vote_of

_VOTE, _REVOTE, _LIFT = RoundKind.VOTE, RoundKind.REVOTE, RoundKind.LIFT
_SEQUENTIAL = VotingMode.SEQUENTIAL
_ALL = Voters.ALL


def begin_vote(st: Step) -> None:
    s, rules, vote = st.s, st.rules, vote_of(st)
    s.phase = Phase.VOTE_INTRO
    st.silence()
    # mafiaratings 9.10: a removal cancels the closest vote, which is this day's vote
    # procedure whatever becomes of it (not held for another reason, or no nominations at
    # all: docs/scenarios.md); the pending cancellation never outlives it.
    cancelled, s.cancel_next_vote = s.cancel_next_vote, False
    gone = [seat for seat in vote.nominations if seat not in s.alive]
    if gone and rules.candidate_left_before_vote is CandidateLeft.CANCEL:
        # Seed 000: a candidate who left before the vote → «оно не состоится и в Городе
        # наступит Ночь».
        st.say("vote.cancelled", seat=gone[0])
        finish_vote(st, VoteOutcome.CANCELLED)
        return
    if cancelled and vote.nominations:
        st.say("vote.cancelled", seat=(s.removed or vote.nominations)[-1])
        finish_vote(st, VoteOutcome.CANCELLED)
        return
    candidates = tuple(seat for seat in vote.nominations if seat in s.alive)
    if not candidates:
        st.say("vote.nobody")
        finish_vote(st, VoteOutcome.NOBODY)
        return
    single = rules.single_candidate_day1 if s.day <= 1 else rules.single_candidate
    if len(candidates) == 1 and single is SingleCandidate.WITHDRAWN:
        # Seed 000: «выставлена всего одна кандидатура, то она снимается с голосования».
        st.say("vote.withdrawn", seat=candidates[0])
        finish_vote(st, VoteOutcome.WITHDRAWN)
        return
    vote.tied = candidates
    # Seed 000: «Дневное обсуждение завершено. Город приступает к голосованию»; the
    # candidates are read out `read_candidates_times` times («дважды озвучивает»).
    st.say("vote.start")
    for _ in range(rules.read_candidates_times):
        st.say("vote.candidates", seats=list(candidates))
    st.timer(rules.intro_seconds, "vote_intro")


def open_first_round(st: Step) -> None:
    open_round(st, _VOTE)


def open_round(st: Step, kind: RoundKind) -> None:
    s, rules, vote = st.s, st.rules, vote_of(st)
    candidates = vote.tied
    if kind is _VOTE:
        voters = s.alive
    elif kind is _REVOTE:
        # Seed 000: «Игроки, попавшие в автокатастрофу, не принимают участие в
        # голосовании»; seed 004: «кандидати теж, але не проти себе».
        voters = s.alive if rules.revote_voters is _ALL else s.alive - set(candidates)
    else:
        voters = s.alive if rules.lift_voters is _ALL else s.alive - set(candidates)
    vote.round = Round(
        number=len(vote.rounds) + 1, kind=kind, candidates=candidates, voters=frozenset(voters)
    )
    s.phase = Phase.VOTING
    st.silence()
    if kind is _LIFT:
        st.say("lift.question", seats=list(candidates))
        st.timer(rules.lift_window_seconds, "lift")
    elif rules.voting_mode is _SEQUENTIAL:
        call_window(st, 0)
    else:
        st.timer(rules.simultaneous_window_seconds, "vote")


def call_window(st: Step, index: int) -> None:
    # Seed 000: «Кто за то, чтобы нашу игру покинул игрок № …?» and two seconds to vote.
    vote = vote_of(st)
    r = round_of(st)
    vote.round = replace_round(r, window=index)
    st.say("vote.call", seat=r.candidates[index])
    st.timer(st.rules.candidate_window_seconds, "vote_window")


def after_window(st: Step) -> None:
    r = round_of(st)
    sequential = r.kind is not _LIFT and st.rules.voting_mode is _SEQUENTIAL
    if sequential and r.window + 1 < len(r.candidates):
        call_window(st, r.window + 1)
        return
    close_round(st)


def on_vote(st: Step, event: ev.CastVote) -> None:
    s = st.s
    voter = check_seat(s, event.voter, "voter")
    candidate = None if event.candidate is None else check_seat(s, event.candidate, "candidate")
    reason = guards.ballot(s, voter, candidate)
    if reason is not None:
        raise guards.refusal(reason, voter=voter, candidate=candidate)
    vote = vote_of(st)
    vote.round = round_of(st).with_ballot(voter, candidate)


def on_lift(st: Step, event: ev.CastLift) -> None:
    s = st.s
    voter = check_seat(s, event.voter, "voter")
    reason = guards.lift_ballot(s, voter)
    if reason is not None:
        raise guards.refusal(reason, voter=voter)
    vote, r = vote_of(st), round_of(st)
    vote.round = replace_round(
        r,
        lift_ballots=(*r.lift_ballots, (voter, bool(event.leave))),
        voted_seats=r.voted_seats | {voter},
    )


def close_round(st: Step) -> None:
    s, rules, vote = st.s, st.rules, vote_of(st)
    r = round_of(st)
    if r.kind is not _LIFT and rules.unvoted_go_to_last:
        # mafiaratings 7.13: «If a player has not voted, their vote goes against the player
        # who was nominated last.»
        last = r.candidates[-1]
        missing = tuple((v, last) for v in sorted(r.voters) if v in s.alive and not r.voted(v))
        r = replace_round(
            r, ballots=r.ballots + missing, voted_seats=r.voted_seats | {v for v, _ in missing}
        )
    vote.rounds += (r.record(),)
    vote.round = r
    if r.kind is _LIFT:
        ties.resolve_lift(st, r)
        return
    counts = r.tally()
    if max(counts.values()) == 0 and rules.zero_votes is ZeroVotes.NOBODY:
        # Reading fixed in shared/conformance: nobody raising a hand = the city chose nobody
        # (seed 004: «місто нікого не обрало»), in a revote too.
        st.say("vote.nobody")
        finish_vote(st, VoteOutcome.NOBODY)
        return
    leaders = r.leaders()
    if len(leaders) == 1:
        eliminate(st, leaders)
        return
    vote.ties += 1
    if r.kind is _VOTE:
        ties.first_tie(st, leaders)
    else:
        ties.repeated_tie(st, r, leaders)


def eliminate(st: Step, seats: tuple[int, ...]) -> None:
    """The vote's result is applied as a whole: everyone it takes out leaves, in
    nomination order, then the game is checked, then their last words in that order."""
    s, vote = st.s, vote_of(st)
    vote.eliminated = seats
    for seat in seats:
        st.say("player.out", seat=seat)
    leaving = tuple(seat for seat in seats if seat in s.alive)
    if leaving:
        removals.leave(st, leaving, LeaveReason.VOTE)
    if s.outcome is not None:
        finish_vote(st, VoteOutcome.ELIMINATED)
        return
    # A candidate who left during the procedure is still voted out, with no last word.
    vote.queue = leaving
    next_last_word(st)


def next_last_word(st: Step) -> None:
    vote = vote_of(st)
    if vote.queue:
        seat, vote.queue = vote.queue[0], vote.queue[1:]
        seconds = st.rules.last_word_seconds
        vote.speeches += ({"player": seat, "kind": "last_word", "seconds": num(seconds)},)
        st.speech(Phase.LAST_WORD, seat, seconds, "last_word", "last_word")
        return
    finish_vote(st, VoteOutcome.ELIMINATED)


def finish_vote(st: Step, outcome: VoteOutcome) -> None:
    s, vote = st.s, vote_of(st)
    vote.outcome = outcome
    vote.round = None
    st.silence()
    going_on = s.outcome is None
    result: dict[str, Any] = {
        "outcome": outcome,
        "eliminated": list(vote.eliminated),
        "rounds": list(vote.rounds),
        "speeches": list(vote.speeches),
        "announcements": [*vote.announced, "night"] if going_on else list(vote.announced),
        "next": "night" if going_on else "game_over",
    }
    st.effects.append(VoteFinished(result=result))
    if s.days:
        today(s, vote=result)
    if not going_on:
        return
    if s.single_vote:
        st.say("night")
        ending.vote_done(st)
        return
    quiet = st.rules.draw_quiet_rounds
    if quiet > 0 and s.day >= quiet + 1 and s.last_leave_period < 2 * (s.day - quiet):
        # GAME.md / mafiaratings 1.5: nights k..k+2 and days k+1..k+3 with nobody leaving.
        ending.end_game(st, Winner.DRAW)
        return
    night.begin_night(st)
