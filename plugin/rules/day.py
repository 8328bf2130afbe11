"""The day and its speeches: the morning, the victim's last word and best move, the regular
speeches in seat order from the opener, nominations, passing.

Rules implemented here:
- GAME.md «Rules fixed here»: day 1 opens with seat 1, each later day with the first seat
  still in the game after the previous day's opener; every seat in the game speaks once, in
  seat order (mafiaratings 6.1, 6.2, 6.3 «First rotates»).
- Nominations: during the nominator's own speech, one per player per day, of a seat in the
  game not already nominated (GAME.md; mafiaratings 7.2, 7.6) — guards.nomination.
- The morning: the night's victim speaks a last word first (8.6); the first player killed
  at night may name three black seats (GAME.md «best move»; 8.17 in fiim).
- The third foul costs the next regular speech not yet started (9.5), or a shortened one
  with few players left (9.7).
"""

from __future__ import annotations

from . import events as ev
from . import guards, ties, voting
from .errors import IllegalAction, InvalidAction
from .modes import ThirdFoul
from .state import DayRecord, Phase, VoteState, check_seat
from .step import Step, today

_SHORT = ThirdFoul.SHORT


def begin_day(st: Step) -> None:
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
        begin_speeches(st)
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


def begin_speeches(st: Step) -> None:
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
    today(s, opener=order[0] if order else None)
    s.speech_queue = order
    next_speaker(st)


def next_speaker(st: Step) -> None:
    s, rules = st.s, st.rules
    s.speaker = None
    while s.speech_queue:
        seat, s.speech_queue = s.speech_queue[0], s.speech_queue[1:]
        if seat not in s.alive:  # a seat no longer in the game when his turn would start
            continue
        seconds = rules.speech_seconds
        if seat in s.skip_speech:
            # mafiaratings 9.5: three fouls cost the closest regular speech, once;
            # 9.7: with few players left, a shortened speech instead.
            s.skip_speech -= {seat}
            short = rules.third_foul is _SHORT or (
                len(s.alive) <= rules.third_foul_short_when_alive_at_most
            )
            if not short:
                st.say("speech.skipped", seat=seat)
                continue
            seconds = rules.third_foul_short_seconds
        today(s, speakers=(*s.days[-1].speakers, seat))
        st.speech(Phase.SPEECH, seat, seconds, "speech", "speech")
        return
    nominations = tuple(target for _, target in s.days[-1].nominations)
    s.vote = VoteState(nominations=nominations)
    voting.begin_vote(st)


def end_speech(st: Step) -> None:
    """The running speech is over (its time ran out, a pass, or the speaker left)."""
    phase = st.s.phase
    if phase is Phase.SPEECH:
        next_speaker(st)
    elif phase is Phase.MORNING_LAST_WORD:
        begin_speeches(st)
    elif phase is Phase.DEFENSE:
        ties.next_defense(st)
    elif phase is Phase.LAST_WORD:
        voting.next_last_word(st)


def on_nominate(st: Step, event: ev.Nominate) -> None:
    s = st.s
    by = check_seat(s, event.by, "nominator")
    target = check_seat(s, event.target, "nominee")
    reason = guards.nomination(s, by, target)
    if reason is not None:
        raise guards.refusal(reason, by=by, target=target)
    today(s, nominations=(*s.days[-1].nominations, (by, target)))
    st.say("nomination", seat=by, target=target)


def on_pass(st: Step, event: ev.PassSpeech) -> None:
    seat = check_seat(st.s, event.seat)
    refusal = guards.passing(st.s, seat)
    if refusal is not None:
        raise refusal
    end_speech(st)


def on_best_move(st: Step, event: ev.BestMove) -> None:
    s = st.s
    by = check_seat(s, event.by, "best move by")
    seats = tuple(check_seat(s, seat, "best move seat") for seat in event.seats)
    if len(seats) != 3 or len(set(seats)) != 3:
        raise InvalidAction("bad_best_move", f"a best move names three different seats: {seats}")
    refusal: IllegalAction | None = guards.best_move(s, by)
    if refusal is not None:
        raise refusal
    correct = sum(1 for seat in seats if s.is_black(seat))
    s.best_move = (by, seats, correct)
