"""Every transition of the rules engine lives in this module.

Theory of operation
-------------------
A table is a sequence of steps. Each step has a phase, the seats that may speak, and
usually one timer. `apply(state, event)` checks the event against the current step,
refuses it (IllegalAction / InvalidAction, state unchanged) or moves the state on and
returns the effects the host must carry out: phrases to announce, who may speak now,
the timer to start, a dialog for the live host, players leaving, the end of the game.

The clock is not ours: a step that lasts a while emits StartTimer(timer=id) and waits;
the host feeds TimerExpired(timer=id) back when it runs out (a stale id is refused).
Steps that wait for a person (the live host's tie dialog, the start of the revote after
the candidates' speeches in manual mode) stop the timer instead.

The game: night zero (the black team's meeting, the don's and the sheriff's meeting, the
free-seating pause), then day 1 (speeches, nominations, the vote), night 1 (the shot, the
don's check, the sheriff's check), day 2 (the victim's last word, speeches, vote) and so
on until one side wins or the draw rule applies. The day vote follows seed 000 (classic,
«Голосование» and «Автокатастрофа») and seed 004 (online, «Нічия й переголосування»),
with every difference between them read from `Rules`, never from the preset's name.

Internally `apply` works on a shallow copy of the state (`_Step`); helpers assign new
immutable values to its attributes and append effects, so the caller's state never changes,
even when a check deep inside refuses the event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import events as ev
from .effects import (
    Announce,
    CloseDialog,
    Effect,
    GameOver,
    OpenDialog,
    PlayersOut,
    PrivateResult,
    SetSpeakers,
    StartTimer,
    StopTimer,
    VoteFinished,
)
from .errors import IllegalAction, InvalidAction
from .records import positional
from .settings import Rules
from .state import (
    DISTRIBUTION,
    SPEECH_PHASES,
    DayRecord,
    Dialog,
    GameState,
    NightRecord,
    Phase,
    Round,
    Timer,
    VoteState,
    check_roles,
    check_seat,
    clone_state,
    clone_vote,
    deal_roles,
    replace_day,
    replace_night,
    replace_round,
)

CHOICES = ("speeches", "revote", "end", "close", "start_revote", "lift")
WINNERS = ("city", "mafia", "draw")


# ---- creating a table ------------------------------------------------------------------


def new_game(
    rules: Rules,
    *,
    players: int = 10,
    roles: dict[int, str] | None = None,
    seed: int = 0,
    manual: bool = False,
) -> GameState:
    """A game in the lobby; StartGame begins night zero. Roles are assigned by the host
    (`roles`, seat -> don/mafia/sheriff, the rest civilians) or dealt from `seed`."""
    if players not in DISTRIBUTION:
        raise InvalidAction("bad_table", f"a table has 7 to 12 players, not {players!r}")
    dealt = check_roles(players, roles) if roles is not None else deal_roles(players, seed)
    return GameState(
        rules=rules,
        players=players,
        roles=dealt,
        alive=frozenset(range(1, players + 1)),
        manual=manual,
        fouls=(0,) * players,
    )


def new_vote(
    rules: Rules,
    *,
    players: int,
    nominations: Iterable[int] = (),
    out: Iterable[int] = (),
    manual: bool = False,
    day: int = 1,
) -> GameState:
    """One day's vote on its own (the voting contract): the discussion is over and the vote
    has not started; the first timer (0 s) starts it, so leaves can come before it."""
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 30:
        raise InvalidAction("bad_table", f"players must be 2 to 30, not {players!r}")
    probe = GameState(rules=rules, players=players, roles=None, alive=frozenset())
    gone = frozenset(check_seat(probe, seat, "out") for seat in out)
    names = tuple(check_seat(probe, seat, "nomination") for seat in nominations)
    if len(set(names)) != len(names):
        raise InvalidAction("bad_nominations", f"a seat is nominated twice: {list(names)}")
    if gone & set(names):
        raise InvalidAction("bad_nominations", f"seats {sorted(gone & set(names))} are out")
    return GameState(
        rules=rules,
        players=players,
        roles=None,
        alive=frozenset(range(1, players + 1)) - gone,
        manual=manual,
        phase=Phase.BEFORE_VOTE,
        day=day,
        period=2 * day - 1,
        timer=Timer(id=1, seconds=0, purpose="discussion_end"),
        next_timer=2,
        vote=VoteState(nominations=names),
        fouls=(0,) * players,
        single_vote=True,
    )


# ---- the step under construction -------------------------------------------------------

# The effects made on almost every event, built without a keyword call (records.py).
_announce = positional(Announce)
_start_timer = positional(StartTimer)
_set_speakers = positional(SetSpeakers)
_new_tuple = tuple.__new__
_new_object = object.__new__


class _Step:
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


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _today(s: GameState, **changes: Any) -> None:
    """Update the record of the current day (a copy: the old state keeps its record)."""
    s.days = (*s.days[:-1], replace_day(s.days[-1], **changes))


def _tonight(s: GameState, **changes: Any) -> None:
    """Update the record of the current night (a copy, like `_today`)."""
    s.nights = (*s.nights[:-1], replace_night(s.nights[-1], **changes))


def _vote(st: _Step) -> VoteState:
    vote = st.s.vote
    assert vote is not None, "no vote procedure is running"
    return vote


def _round(st: _Step) -> Round:
    r = _vote(st).round
    assert r is not None, "no round is open"
    return r


# ---- apply -----------------------------------------------------------------------------


def apply(state: GameState, event: ev.Event) -> tuple[GameState, list[Effect]]:
    """Apply one event: the new state and the effects, or a refusal (state unchanged)."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise InvalidAction("bad_event", f"not an engine event: {event!r}")
    if state.over and not isinstance(event, ev.SetManual):
        raise IllegalAction("game_over", "the game is over")
    st = _new_object(_Step)  # the step's three slots are set here, without an __init__ call
    st.s = s = clone_state(state)
    if s.vote is not None:
        s.vote = clone_vote(s.vote)
    st.rules = s.rules
    st.effects = []
    handler(st, event)
    st.s.version += 1
    return st.s, st.effects


def _on_start(st: _Step, event: ev.StartGame) -> None:
    if st.s.phase is not Phase.LOBBY:
        raise IllegalAction("not_now", "the game has already started")
    st.s.period = 0
    st.effects.append(SetSpeakers(seats=frozenset()))
    st.say("night")
    st.s.phase = Phase.BLACK_MEETING
    st.say("night.black_meeting")
    st.timer(st.rules.black_meeting_seconds, "black_meeting")


def _on_timer(st: _Step, event: ev.TimerExpired) -> None:
    s = st.s
    if s.timer is None or event.timer != s.timer.id:
        raise IllegalAction("stale_timer", f"timer {event.timer} is not the running timer")
    expired = s.timer
    _TIMER_STEPS[s.phase](st)
    if s.timer is expired:  # the next step waits for a person: say that no timer runs
        st.wait()


# ---- night zero ------------------------------------------------------------------------


def _after_black_meeting(st: _Step) -> None:
    st.say("night.black_sleep")
    st.s.phase = Phase.DON_MEETING
    st.say("night.don_meeting")
    st.timer(st.rules.don_meeting_seconds, "don_meeting")


def _after_don_meeting(st: _Step) -> None:
    st.s.phase = Phase.SHERIFF_MEETING
    st.say("night.sheriff_meeting")
    st.timer(st.rules.sheriff_meeting_seconds, "sheriff_meeting")


def _after_sheriff_meeting(st: _Step) -> None:
    st.s.phase = Phase.FREE_SEATING
    st.say("night.free_seating")
    st.timer(st.rules.free_seating_seconds, "free_seating")


# ---- the day ---------------------------------------------------------------------------


def _begin_day(st: _Step) -> None:
    s = st.s
    s.day += 1
    s.period = 2 * s.day - 1
    s.days += (DayRecord(day=s.day),)
    s.vote = None
    st.silence()
    st.say("morning")
    if s.day > 1:
        if s.victim is not None:
            st.say("morning.killed", seat=s.victim)
        else:
            st.say("morning.miss")
    if s.victim is None:
        _begin_speeches(st)
        return
    victim = s.victim
    st.speech(
        Phase.MORNING_LAST_WORD,
        victim,
        st.rules.morning_last_word_seconds,
        "morning_last_word",
        "last_word",
    )
    if s.best_move_open:
        st.say("best_move", seat=victim)


def _begin_speeches(st: _Step) -> None:
    # GAME.md: day 1 opens with seat 1; each later day with the first seat still in the
    # game after the previous day's opener, going round the table.
    s = st.s
    s.victim = None
    previous = s.days[-2].opener if len(s.days) >= 2 else None
    start = 1 if previous is None else previous % s.players + 1
    order = tuple(
        seat
        for seat in ((start - 1 + i) % s.players + 1 for i in range(s.players))
        if seat in s.alive
    )
    _today(s, opener=order[0] if order else None)
    s.speech_queue = order
    _next_speaker(st)


def _next_speaker(st: _Step) -> None:
    s, rules = st.s, st.rules
    s.speaker = None
    while s.speech_queue:
        seat, s.speech_queue = s.speech_queue[0], s.speech_queue[1:]
        if seat not in s.alive:
            continue
        seconds = rules.speech_seconds
        if seat in s.skip_speech:
            # mafiaratings 9.5: three fouls cost the closest regular speech, once;
            # 9.7: with few players left, a shortened speech instead.
            s.skip_speech -= {seat}
            short = rules.third_foul == "short" or (
                len(s.alive) <= rules.third_foul_short_when_alive_at_most
            )
            if not short:
                st.say("speech.skipped", seat=seat)
                continue
            seconds = rules.third_foul_short_seconds
        _today(s, speakers=(*s.days[-1].speakers, seat))
        st.speech(Phase.SPEECH, seat, seconds, "speech", "speech")
        return
    nominations = tuple(target for _, target in s.days[-1].nominations)
    s.vote = VoteState(nominations=nominations)
    _begin_vote(st)


def _end_speech(st: _Step) -> None:
    """The running speech is over (its time ran out, a pass, or the speaker left)."""
    phase = st.s.phase
    if phase is Phase.SPEECH:
        _next_speaker(st)
    elif phase is Phase.MORNING_LAST_WORD:
        _begin_speeches(st)
    elif phase is Phase.DEFENSE:
        _next_defense(st)
    elif phase is Phase.LAST_WORD:
        _next_last_word(st)


def _on_nominate(st: _Step, event: ev.Nominate) -> None:
    s = st.s
    by = check_seat(s, event.by, "nominator")
    target = check_seat(s, event.target, "nominee")
    if s.phase is not Phase.SPEECH or s.speaker != by:
        raise IllegalAction("not_your_speech", f"seat {by} nominates only during his own speech")
    day = s.days[-1]
    if any(nominator == by for nominator, _ in day.nominations):
        raise IllegalAction("already_nominated_today", f"seat {by} has nominated today")
    if target not in s.alive:
        raise IllegalAction("not_in_game", f"seat {target} is not in the game")
    if any(t == target for _, t in day.nominations):
        raise IllegalAction("already_nominated", f"seat {target} is already nominated")
    _today(s, nominations=(*day.nominations, (by, target)))
    st.say("nomination", seat=by, target=target)


def _on_pass(st: _Step, event: ev.PassSpeech) -> None:
    s = st.s
    seat = check_seat(s, event.seat)
    if s.phase not in SPEECH_PHASES or s.speaker != seat:
        raise IllegalAction("not_speaking", f"seat {seat} is not speaking now")
    _end_speech(st)


# ---- the day vote ----------------------------------------------------------------------


def _begin_vote(st: _Step) -> None:
    s, rules, vote = st.s, st.rules, _vote(st)
    s.phase = Phase.VOTE_INTRO
    st.silence()
    gone = [seat for seat in vote.nominations if seat not in s.alive]
    if gone and rules.candidate_left_before_vote == "cancel":
        # Seed 000: a candidate who left before the vote → «оно не состоится и в Городе
        # наступит Ночь».
        s.cancel_next_vote = False  # 9.10: this was the closest vote
        st.say("vote.cancelled", seat=gone[0])
        _finish_vote(st, "cancelled")
        return
    # mafiaratings 9.10: a removal cancels the closest vote, which is this day's vote
    # procedure whatever becomes of it (not held for another reason, or no nominations at
    # all: docs/scenarios.md); the pending cancellation never outlives it.
    cancelled, s.cancel_next_vote = s.cancel_next_vote, False
    if cancelled and vote.nominations:
        st.say("vote.cancelled", seat=(s.removed or vote.nominations)[-1])
        _finish_vote(st, "cancelled")
        return
    candidates = tuple(seat for seat in vote.nominations if seat in s.alive)
    if not candidates:
        st.say("vote.nobody")
        _finish_vote(st, "nobody")
        return
    single = rules.single_candidate_day1 if s.day <= 1 else rules.single_candidate
    if len(candidates) == 1 and single == "withdrawn":
        # Seed 000: «выставлена всего одна кандидатура, то она снимается с голосования».
        st.say("vote.withdrawn", seat=candidates[0])
        _finish_vote(st, "withdrawn")
        return
    vote.tied = candidates
    # Seed 000: «Дневное обсуждение завершено. Город приступает к голосованию»; the
    # candidates are read out `read_candidates_times` times («дважды озвучивает»).
    st.say("vote.start")
    for _ in range(rules.read_candidates_times):
        st.say("vote.candidates", seats=list(candidates))
    st.timer(rules.intro_seconds, "vote_intro")


def _open_round(st: _Step, kind: str) -> None:
    s, rules, vote = st.s, st.rules, _vote(st)
    candidates = vote.tied
    if kind == "vote":
        voters = s.alive
    elif kind == "revote":
        # Seed 000: «Игроки, попавшие в автокатастрофу, не принимают участие в
        # голосовании»; seed 004: «кандидати теж, але не проти себе».
        voters = s.alive if rules.revote_voters == "all" else s.alive - set(candidates)
    else:
        voters = s.alive if rules.lift_voters == "all" else s.alive - set(candidates)
    vote.round = Round(
        number=len(vote.rounds) + 1, kind=kind, candidates=candidates, voters=frozenset(voters)
    )
    s.phase = Phase.VOTING
    st.silence()
    if kind == "lift":
        st.say("lift.question", seats=list(candidates))
        st.timer(rules.lift_window_seconds, "lift")
    elif rules.voting_mode == "sequential":
        _call_window(st, 0)
    else:
        st.timer(rules.simultaneous_window_seconds, "vote")


def _call_window(st: _Step, index: int) -> None:
    # Seed 000: «Кто за то, чтобы нашу игру покинул игрок № …?» and two seconds to vote.
    vote = _vote(st)
    r = _round(st)
    vote.round = replace_round(r, window=index)
    st.say("vote.call", seat=r.candidates[index])
    st.timer(st.rules.candidate_window_seconds, "vote_window")


def _after_window(st: _Step) -> None:
    r = _round(st)
    sequential = r.kind != "lift" and st.rules.voting_mode == "sequential"
    if sequential and r.window + 1 < len(r.candidates):
        _call_window(st, r.window + 1)
        return
    _close_round(st)


def _on_vote(st: _Step, event: ev.CastVote) -> None:
    s, rules = st.s, st.rules
    voter = check_seat(s, event.voter, "voter")
    candidate = None if event.candidate is None else check_seat(s, event.candidate, "candidate")
    vote = s.vote
    r = vote.round if vote is not None else None
    if s.phase is not Phase.VOTING or r is None or r.kind == "lift":
        raise IllegalAction("closed", "no vote is open now")
    assert vote is not None
    # The order of checks is the voting contract's: not_eligible, duplicate,
    # not_candidate, self_vote.
    if voter not in r.voters or voter not in s.alive:
        raise IllegalAction("not_eligible", f"seat {voter} may not vote in this round")
    if r.voted(voter):
        raise IllegalAction("duplicate", f"seat {voter} has already voted in this round")
    if candidate is not None and candidate not in r.candidates:
        raise IllegalAction("not_candidate", f"seat {candidate} is not a candidate")
    if candidate == voter and not rules.self_vote_allowed:
        raise IllegalAction("self_vote", f"seat {voter} may not vote for himself")
    if candidate is None and not rules.abstention_allowed:
        raise IllegalAction("no_abstention", "abstaining is not allowed by these rules")
    if candidate is not None and rules.voting_mode == "sequential":
        position = r.candidates.index(candidate)
        if position < r.window:
            raise IllegalAction("closed", f"the vote for seat {candidate} is over")
        if position > r.window:
            raise IllegalAction("not_open", f"the vote for seat {candidate} has not started")
    vote.round = r.with_ballot(voter, candidate)


def _on_lift(st: _Step, event: ev.CastLift) -> None:
    s = st.s
    voter = check_seat(s, event.voter, "voter")
    vote = s.vote
    r = vote.round if vote is not None else None
    if s.phase is not Phase.VOTING or r is None or r.kind != "lift":
        raise IllegalAction("closed", "no lift vote is open now")
    assert vote is not None
    if voter not in r.voters or voter not in s.alive:
        raise IllegalAction("not_eligible", f"seat {voter} may not vote on the lift question")
    if r.voted(voter):
        raise IllegalAction("duplicate", f"seat {voter} has already voted on the lift question")
    vote.round = replace_round(
        r,
        lift_ballots=(*r.lift_ballots, (voter, bool(event.leave))),
        voted_seats=r.voted_seats | {voter},
    )


def _close_round(st: _Step) -> None:
    s, rules, vote = st.s, st.rules, _vote(st)
    r = _round(st)
    if r.kind != "lift" and rules.unvoted_go_to_last:
        # mafiaratings 7.13: «If a player has not voted, their vote goes against the player
        # who was nominated last.»
        last = r.candidates[-1]
        missing = tuple((v, last) for v in sorted(r.voters) if v in s.alive and not r.voted(v))
        r = replace_round(
            r, ballots=r.ballots + missing, voted_seats=r.voted_seats | {v for v, _ in missing}
        )
    vote.rounds += (r.record(),)
    vote.round = r
    if r.kind == "lift":
        _resolve_lift(st, r)
        return
    counts = r.tally()
    if max(counts.values()) == 0 and rules.zero_votes == "nobody":
        # Reading fixed in shared/conformance: nobody raising a hand = the city chose nobody
        # (seed 004: «місто нікого не обрало»), in a revote too.
        st.say("vote.nobody")
        _finish_vote(st, "nobody")
        return
    leaders = r.leaders()
    if len(leaders) == 1:
        _eliminate(st, leaders)
        return
    vote.ties += 1
    if r.kind == "vote":
        _first_tie(st, leaders)
        return
    same = set(leaders) == set(r.candidates)
    vote.tied = leaders
    if rules.all_tied_nobody_leaves and s.alive <= set(leaders):
        # mafiaratings 7.20: «If as a result of voting and then re-voting the table is shared
        # between all the players in the game, the night is announced. No one leaves.»
        st.say("tie.again")
        _finish_vote(st, "nobody")
        return
    vote.again = rules.repeat_tie if same else rules.narrower_tie
    if s.manual and rules.repeat_tie_dialog_options:
        _open_dialog(
            st,
            "repeat_tie",
            leaders,
            rules.repeat_tie_dialog_options,
            rules.repeat_tie_dialog_default,
        )
        return
    _tie_again(st, vote.again)


def _first_tie(st: _Step, leaders: tuple[int, ...]) -> None:
    # Seed 004: only the candidates tied at the top stay on the ballot.
    _vote(st).tied = leaders
    rules = st.rules
    if st.s.manual and rules.tie_dialog_options:
        _open_dialog(st, "tie", leaders, rules.tie_dialog_options, rules.tie_dialog_default)
        return
    _tie_speeches(st)


def _tie_again(st: _Step, action: str) -> None:
    """A revote tied again: nobody leaves (seed 004), the lift question (seed 000), or a
    further round of speeches and revote among fewer candidates (mafiaratings 7.18)."""
    if action == "nobody":
        st.say("tie.again")
        _finish_vote(st, "nobody")
    elif action == "lift":
        _open_round(st, "lift")
    else:
        _tie_speeches(st)


def _tie_speeches(st: _Step) -> None:
    vote = _vote(st)
    if not st.rules.tie_speeches:
        _revote_after_pause(st)
        return
    # Seed 000: «на оправдание голосуемым дается по 30 секунд»; seed 004: «Нічия.
    # Кандидати говорять ще раз». A candidate who has left gets no speech.
    st.say("tie.speeches", seats=list(vote.tied))
    vote.queue = tuple(seat for seat in vote.tied if seat in st.s.alive)
    _next_defense(st)


def _next_defense(st: _Step) -> None:
    s, rules, vote = st.s, st.rules, _vote(st)
    # README: one who leaves during the procedure «gets no speech»: a seat no longer in the
    # game when his turn would start is skipped (auto and manual alike).
    while vote.queue and vote.queue[0] not in s.alive:
        vote.queue = vote.queue[1:]
    if vote.queue:
        seat, vote.queue = vote.queue[0], vote.queue[1:]
        seconds = rules.defense_seconds
        vote.speeches += ({"player": seat, "kind": "defense", "seconds": _num(seconds)},)
        st.speech(Phase.DEFENSE, seat, seconds, "defense", "defense")
        return
    if s.manual and rules.host_starts_revote:
        # Seed 004, live host: «кожен ще раз говорить, потім ведучий запускає
        # переголосування».
        s.phase = Phase.AWAIT_REVOTE
        st.silence()
        st.wait()
        return
    _revote_after_pause(st)


def _revote_after_pause(st: _Step) -> None:
    s = st.s
    st.silence()
    # Seed 004: «Перед цим є коротка пауза, щоб побачити, хто лишився».
    if st.rules.revote_pause_seconds > 0:
        s.phase = Phase.REVOTE_PAUSE
        st.timer(st.rules.revote_pause_seconds, "revote_pause")
        return
    _start_revote(st)


def _start_revote(st: _Step) -> None:
    st.say("tie.revote", seats=list(_vote(st).tied))
    _open_round(st, "revote")


def _resolve_lift(st: _Step, r: Round) -> None:
    s = st.s
    yes, no = r.lift_tally()
    # Seed 000: «Если большинство голосует «ЗА» ... Если голоса делятся поровну, либо никто
    # не проголосовал, игроки остаются в игре»; fiim: more than half of the players in the game.
    by_ballots = st.rules.lift_passes == "more_for_than_against"
    passes = yes > no if by_ballots else yes * 2 > len(s.alive)
    if passes:
        _eliminate(st, r.candidates)
        return
    st.say("lift.stay")
    _finish_vote(st, "nobody")


def _eliminate(st: _Step, seats: tuple[int, ...]) -> None:
    """The vote's result is applied as a whole: everyone it takes out leaves, in
    nomination order, then the game is checked, then their last words in that order."""
    s, vote = st.s, _vote(st)
    vote.eliminated = seats
    for seat in seats:
        st.say("player.out", seat=seat)
    leaving = tuple(seat for seat in seats if seat in s.alive)
    if leaving:
        _leave(st, leaving, "vote")
    if s.winner is not None:
        _finish_vote(st, "eliminated")
        return
    # A candidate who left during the procedure is still voted out, with no last word.
    vote.queue = leaving
    _next_last_word(st)


def _next_last_word(st: _Step) -> None:
    vote = _vote(st)
    if vote.queue:
        seat, vote.queue = vote.queue[0], vote.queue[1:]
        seconds = st.rules.last_word_seconds
        vote.speeches += ({"player": seat, "kind": "last_word", "seconds": _num(seconds)},)
        st.speech(Phase.LAST_WORD, seat, seconds, "last_word", "last_word")
        return
    _finish_vote(st, "eliminated")


def _finish_vote(st: _Step, outcome: str) -> None:
    s, vote = st.s, _vote(st)
    vote.outcome = outcome
    vote.round = None
    st.silence()
    going_on = s.winner is None
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
        _today(s, vote=result)
    if not going_on:
        return
    if s.single_vote:
        st.say("night")
        s.phase = Phase.OVER
        s.over = True
        st.wait()
        return
    quiet = st.rules.draw_quiet_rounds
    if quiet > 0 and s.day >= quiet + 1 and s.last_leave_period < 2 * (s.day - quiet):
        # GAME.md / mafiaratings 1.5: nights k..k+2 and days k+1..k+3 with nobody leaving.
        _end_game(st, "draw")
        return
    _begin_night(st)


# ---- the live host's dialogs -----------------------------------------------------------


def _open_dialog(
    st: _Step, kind: str, candidates: tuple[int, ...], options: tuple[str, ...], default: str
) -> None:
    s = st.s
    s.dialog = Dialog(kind=kind, candidates=candidates, options=options, default=default)
    s.phase = Phase.DIALOG
    st.silence()
    st.wait()
    st.effects.append(
        OpenDialog(kind=kind, candidates=candidates, options=options, default=default)
    )


def _on_choice(st: _Step, event: ev.HostChoice) -> None:
    s = st.s
    choice = event.choice
    if choice not in CHOICES:
        raise InvalidAction("bad_choice", f"unknown choice {choice!r}; one of {list(CHOICES)}")
    if s.phase is Phase.AWAIT_REVOTE:
        if choice != "start_revote":
            raise IllegalAction(
                "not_offered",
                f"{choice!r}: the defense speeches are over; the live host starts the revote "
                "now (start_revote), nothing else",
            )
        _start_revote(st)
        return
    dialog = s.dialog
    if s.phase is not Phase.DIALOG or dialog is None:
        raise IllegalAction("no_dialog", f"{choice!r}: {_why_no_dialog(s)}")
    if choice == "close":
        # Seed 004: closing the window with nothing chosen takes the default.
        choice = dialog.default
    elif choice not in dialog.options:
        raise IllegalAction("not_offered", f"{choice!r} is not offered by the {dialog.kind} dialog")
    _decide(st, dialog, choice)


def _why_no_dialog(s: GameState) -> str:
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
            f"no dialog is open: the {rules.name} rules fix the tie procedure and ask the live "
            f"host nothing at a tie{revote}"
        )
    return f"no dialog is open now ({s.phase.value}); the tie dialog opens at a tie"


def _decide(st: _Step, dialog: Dialog, choice: str) -> None:
    st.s.dialog = None
    st.effects.append(CloseDialog())
    if choice == "speeches":
        _tie_speeches(st)
    elif choice == "revote":
        _start_revote(st)
    elif choice == "lift":
        _open_round(st, "lift")
    else:  # end: «Завершити голосування» — nobody leaves
        st.say("tie.again")
        _finish_vote(st, "nobody")


def _on_manual(st: _Step, event: ev.SetManual) -> None:
    s = st.s
    if s.manual == event.on:
        return
    s.manual = event.on
    if s.over:
        return
    st.say("manual.on" if event.on else "manual.off")
    if event.on:
        return
    # Handing the decisions back to the bot: it does what the automatic host would do.
    if s.phase is Phase.DIALOG and s.dialog is not None:
        dialog = s.dialog
        if dialog.kind == "tie":
            _decide(st, dialog, "speeches")
        else:
            s.dialog = None
            st.effects.append(CloseDialog())
            _tie_again(st, _vote(st).again)
    elif s.phase is Phase.AWAIT_REVOTE:
        _revote_after_pause(st)


# ---- the night -------------------------------------------------------------------------


def _begin_night(st: _Step) -> None:
    s = st.s
    s.night = s.day
    s.period = 2 * s.night
    s.nights += (NightRecord(night=s.night),)
    s.vote = None
    st.silence()
    st.say("night")
    s.phase = Phase.SHOT
    st.say("night.shot")
    st.timer(st.rules.night_action_seconds, "shot")


def _on_shoot(st: _Step, event: ev.Shoot) -> None:
    s = st.s
    by = check_seat(s, event.by, "shooter")
    target = check_seat(s, event.target, "target")
    if s.phase is not Phase.SHOT:
        raise IllegalAction("not_now", "the mafia shoots only at the night's shot")
    if by not in s.alive or not s.is_black(by):
        raise IllegalAction("not_black", f"seat {by} is not a black player in the game")
    night = s.nights[-1]
    # A second shot is recorded, not refused: mafiaratings 8.7, a black player who «shoots
    # more than once» makes the mafia miss.
    _tonight(s, shots=(*night.shots, (by, target)))


def _after_shot(st: _Step) -> None:
    # The kill lands only if every black player in the game shot, all at the same seat,
    # and that seat is in the game (mafiaratings 8.5, 8.7); otherwise the mafia missed.
    s = st.s
    night = s.nights[-1]
    shots = dict(night.shots)
    black = sorted(s.alive & s.black_seats)
    targets = {shots.get(seat) for seat in black}
    # GAME.md: every shot a black player sent counts (a second, different seat is a miss);
    # mafiaratings 8.7 (`repeated_shot_misses`): any repeated shot is a miss.
    targets |= {target for by, target in night.shots if by in black}
    once = not st.rules.repeated_shot_misses or len({by for by, _ in night.shots}) == len(
        night.shots
    )
    killed = None
    if black and once and all(seat in shots for seat in black) and len(targets) == 1:
        target = targets.pop()
        if target in s.alive:
            killed = target
    if killed is not None:
        _tonight(s, killed=killed)
        s.victim = killed
        if s.first_killed is None:
            s.first_killed = killed
        _leave(st, (killed,), "killed")
        if s.winner is not None:
            return
    s.phase = Phase.DON_CHECK
    st.say("night.don_check")
    st.timer(st.rules.night_action_seconds, "don_check")


def _check(st: _Step, role: str, phase: Phase, target_seat: int) -> tuple[int, int]:
    s = st.s
    target = check_seat(s, target_seat, "target")
    if s.phase is not phase:
        raise IllegalAction("not_now", f"the {role}'s check is not now")
    checker = s.seat_of(role)
    # A dead don's or sheriff's check still takes its time but accepts nothing.
    if checker is None or checker not in s.alive:
        raise IllegalAction("not_in_game", f"the {role} is not in the game")
    night = s.nights[-1]
    done = night.don_check if role == "don" else night.sheriff_check
    if done is not None:
        raise IllegalAction("duplicate", f"the {role} has already checked tonight")
    return checker, target


def _on_don_check(st: _Step, event: ev.DonCheck) -> None:
    s = st.s
    don, target = _check(st, "don", Phase.DON_CHECK, event.target)
    found = s.role(target) == "sheriff"
    _tonight(s, don_check=(target, found))
    s.checks += ((don, "don_check", target, found),)
    st.effects.append(PrivateResult(seat=don, kind="don_check", target=target, result=found))


def _on_sheriff_check(st: _Step, event: ev.SheriffCheck) -> None:
    s = st.s
    sheriff, target = _check(st, "sheriff", Phase.SHERIFF_CHECK, event.target)
    black = s.is_black(target)
    _tonight(s, sheriff_check=(target, black))
    s.checks += ((sheriff, "sheriff_check", target, black),)
    st.effects.append(
        PrivateResult(seat=sheriff, kind="sheriff_check", target=target, result=black)
    )


def _after_don_check(st: _Step) -> None:
    st.s.phase = Phase.SHERIFF_CHECK
    st.say("night.sheriff_check")
    st.timer(st.rules.night_action_seconds, "sheriff_check")


def _on_best_move(st: _Step, event: ev.BestMove) -> None:
    s = st.s
    by = check_seat(s, event.by, "best move by")
    seats = tuple(check_seat(s, seat, "best move seat") for seat in event.seats)
    if len(seats) != 3 or len(set(seats)) != 3:
        raise InvalidAction("bad_best_move", f"a best move names three different seats: {seats}")
    if not s.best_move_open or s.speaker != by:
        raise IllegalAction("not_now", f"seat {by} has no best move now")
    correct = sum(1 for seat in seats if s.is_black(seat))
    s.best_move = (by, seats, correct)


# ---- players leaving, fouls, the end ---------------------------------------------------


def _leave(st: _Step, seats: tuple[int, ...], reason: str) -> None:
    s = st.s
    s.alive -= set(seats)
    s.last_leave_period = s.period
    if s.period == 1:
        s.left_on_day1 += len(seats)
    st.effects.append(PlayersOut(seats=seats, reason=reason))
    if s.speakers & set(seats):
        st.speakers(s.speakers - set(seats))
    _check_end(st)


def _out_of_turn(st: _Step, seat: int) -> None:
    """After a player left at once: a speech of his that was running ends."""
    s = st.s
    if s.winner is None and s.speaker == seat and s.phase in SPEECH_PHASES:
        st.wait()
        _end_speech(st)


def _alive_player(st: _Step, seat: int) -> int:
    s = st.s
    seat = check_seat(s, seat)
    if s.phase is Phase.LOBBY:
        raise IllegalAction("not_now", "the game has not started")
    if seat not in s.alive:
        raise IllegalAction("not_in_game", f"seat {seat} is not in the game")
    return seat


def _on_leave(st: _Step, event: ev.PlayerLeft) -> None:
    seat = _alive_player(st, event.seat)
    st.say("player.left", seat=seat)
    _leave(st, (seat,), "left")
    _out_of_turn(st, seat)


def _on_disqualify(st: _Step, event: ev.Disqualify) -> None:
    seat = _alive_player(st, event.seat)
    st.say("disqualified", seat=seat)
    _leave(st, (seat,), "disqualified")
    _removal_cancels_vote(st, seat)
    _out_of_turn(st, seat)


def _removal_cancels_vote(st: _Step, seat: int) -> None:
    """mafiaratings 9.10 (anti-monster, first variant): a player removed by a fourth warning
    or a disqualification cancels the current vote, or else the closest one."""
    s = st.s
    if st.rules.removal_cancels_vote != "any" or s.winner is not None or s.single_vote:
        return
    vote = s.vote
    if vote is not None and vote.outcome is None and not vote.eliminated:
        if s.dialog is not None:
            s.dialog = None
            st.effects.append(CloseDialog())
        st.wait()
        st.say("vote.cancelled", seat=seat)
        _finish_vote(st, "cancelled")
    else:
        s.cancel_next_vote = True


def _on_foul(st: _Step, event: ev.Foul) -> None:
    s, rules = st.s, st.rules
    seat = _alive_player(st, event.seat)
    count = s.fouls[seat - 1] + 1
    s.fouls = (*s.fouls[: seat - 1], count, *s.fouls[seat:])
    st.say("foul", seat=seat, count=count)
    if count >= rules.removal_fouls:
        # mafiaratings 9.9: the fourth foul removes the player at once, without a last word.
        st.say("foul.removed", seat=seat)
        s.removed += (seat,)
        _leave(st, (seat,), "fouls")
        _removal_cancels_vote(st, seat)
        _out_of_turn(st, seat)
    elif count == rules.removal_fouls - 1 and rules.third_foul != "none":
        # The next regular speech that has not started yet is lost (a speech under way
        # goes on).
        s.skip_speech |= {seat}


def _check_end(st: _Step) -> None:
    s = st.s
    if s.roles is None or s.winner is not None:
        return
    black = len(s.alive & s.black_seats)
    red = len(s.alive) - black
    # mafiaratings 1.4: the city wins when every black player is out; the mafia when the
    # black players are at least as many as the red ones.
    if black == 0:
        _end_game(st, "city")
    elif black >= red:
        _end_game(st, "mafia")


def _end_game(st: _Step, winner: str | None) -> None:
    s = st.s
    s.winner = winner
    if s.dialog is not None:
        s.dialog = None
        st.effects.append(CloseDialog())
    s.speech_queue = ()
    if winner in ("city", "mafia") and st.rules.final_minute_seconds > 0:
        s.phase = Phase.FINAL_MINUTE
        s.speaker = None
        st.speakers(s.alive)
        st.timer(st.rules.final_minute_seconds, "final_minute")
        return
    _game_over(st)


def _game_over(st: _Step) -> None:
    s = st.s
    s.over = True
    s.phase = Phase.OVER
    st.silence()
    st.wait()
    if s.winner is not None:
        st.say(f"win.{s.winner}")
    st.effects.append(GameOver(winner=s.winner))


def _on_end_game(st: _Step, event: ev.EndGame) -> None:
    if event.winner is not None and event.winner not in WINNERS:
        raise InvalidAction("bad_winner", f"winner must be one of {WINNERS} or null")
    if st.s.phase is Phase.LOBBY:
        raise IllegalAction("not_now", "the game has not started")
    st.s.winner = event.winner
    _game_over(st)


_TIMER_STEPS: dict[Phase, Callable[[_Step], None]] = {
    Phase.BLACK_MEETING: _after_black_meeting,
    Phase.DON_MEETING: _after_don_meeting,
    Phase.SHERIFF_MEETING: _after_sheriff_meeting,
    Phase.FREE_SEATING: _begin_day,
    Phase.MORNING_LAST_WORD: _end_speech,
    Phase.SPEECH: _end_speech,
    Phase.BEFORE_VOTE: _begin_vote,
    Phase.VOTE_INTRO: lambda st: _open_round(st, "vote"),
    Phase.VOTING: _after_window,
    Phase.DEFENSE: _end_speech,
    Phase.REVOTE_PAUSE: _start_revote,
    Phase.LAST_WORD: _end_speech,
    Phase.SHOT: _after_shot,
    Phase.DON_CHECK: _after_don_check,
    Phase.SHERIFF_CHECK: _begin_day,
    Phase.FINAL_MINUTE: _game_over,
}

_HANDLERS: dict[type[Any], Callable[[_Step, Any], None]] = {
    ev.StartGame: _on_start,
    ev.TimerExpired: _on_timer,
    ev.Nominate: _on_nominate,
    ev.PassSpeech: _on_pass,
    ev.CastVote: _on_vote,
    ev.CastLift: _on_lift,
    ev.HostChoice: _on_choice,
    ev.SetManual: _on_manual,
    ev.PlayerLeft: _on_leave,
    ev.Foul: _on_foul,
    ev.Disqualify: _on_disqualify,
    ev.Shoot: _on_shoot,
    ev.DonCheck: _on_don_check,
    ev.SheriffCheck: _on_sheriff_check,
    ev.BestMove: _on_best_move,
    ev.EndGame: _on_end_game,
}
