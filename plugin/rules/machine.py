"""The transition table of the rules engine, and `apply`.

Theory of operation
-------------------
A table is a sequence of steps. Each step has a phase, the seats that may speak, and
usually one timer. `apply(state, event)` looks the event up in the transition table
(`ACCEPTS`: which events each phase accepts, besides `ANY_TIME`, the events accepted at any
moment of a running game). A missing entry *is* the refusal, as in h11's `_state.py`:
IllegalAction("not_now") naming the event and the phase. An accepted event goes to its
handler, which asks the guards (guards.py: may this seat nominate, vote, shoot now — the
same predicates `legal_actions` lists with) and moves the state on, returning the effects
the host must carry out: phrases to announce, who may speak now, the timer to start, a
dialog for the live host, players leaving, the end of the game. A refusal leaves the state
unchanged (the handlers work on a copy, step.py).

The clock is not ours: a step that lasts a while emits StartTimer(timer=id) and waits;
the host feeds TimerExpired(timer=id) back when it runs out (a stale id is refused), and
`TIMER_STEPS` says what the end of each phase's timer leads to. Steps that wait for a
person (the live host's tie dialog, the start of the revote after the defense speeches in
manual mode) stop the timer instead.

The game, by part (each module names the seed lines and rule numbers it implements):
night zero and each night (night.py), the day and its speeches (day.py), the day vote
(voting.py) and its ties and dialogs (ties.py), players leaving, fouls and removals
(removals.py), and the end (ending.py: one Outcome value). The day vote follows seed 000
(classic) and seed 004 (online); every difference between presets is read from `Rules`,
never from the preset's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import day, ending, night, removals, ties, voting
from . import events as ev
from .effects import Effect, SetSpeakers
from .errors import IllegalAction, InvalidAction
from .events import EVENT_TYPES
from .roles import DISTRIBUTION, check_roles, deal_roles
from .settings import Rules
from .state import GameState, Phase, Timer, VoteState, check_seat, clone_state, clone_vote
from .step import Step

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


# ---- the transition table --------------------------------------------------------------


def _kinds(*kinds: type[Any]) -> frozenset[type[Any]]:
    return frozenset(kinds)


# Accepted at any moment of a running game (not in the lobby, not once it is over).
ANY_TIME: frozenset[type[Any]] = _kinds(
    ev.PlayerLeft, ev.Foul, ev.Disqualify, ev.EndGame, ev.SetManual
)

_SPEECH: frozenset[type[Any]] = _kinds(ev.TimerExpired, ev.PassSpeech)

# Which events each phase accepts, besides ANY_TIME. Everything that decides whether an
# event may happen in a phase lives here; the guards (guards.py) decide the rest.
PHASE_EVENTS: dict[Phase, frozenset[type[Any]]] = {
    Phase.LOBBY: _kinds(ev.StartGame, ev.SetManual),
    Phase.BLACK_MEETING: _kinds(ev.TimerExpired),
    Phase.DON_MEETING: _kinds(ev.TimerExpired),
    Phase.SHERIFF_MEETING: _kinds(ev.TimerExpired),
    Phase.FREE_SEATING: _kinds(ev.TimerExpired),
    Phase.MORNING_LAST_WORD: _SPEECH | _kinds(ev.BestMove),
    Phase.SPEECH: _SPEECH | _kinds(ev.Nominate),
    Phase.BEFORE_VOTE: _kinds(ev.TimerExpired),
    Phase.VOTE_INTRO: _kinds(ev.TimerExpired),
    Phase.VOTING: _kinds(ev.TimerExpired, ev.CastVote, ev.CastLift),
    Phase.DEFENSE: _SPEECH,
    Phase.REVOTE_PAUSE: _kinds(ev.TimerExpired),
    Phase.DIALOG: _kinds(ev.HostChoice, ev.TimerExpired),
    Phase.AWAIT_REVOTE: _kinds(ev.HostChoice, ev.TimerExpired),
    Phase.LAST_WORD: _SPEECH,
    Phase.SHOT: _kinds(ev.TimerExpired, ev.Shoot),
    Phase.DON_CHECK: _kinds(ev.TimerExpired, ev.DonCheck),
    Phase.SHERIFF_CHECK: _kinds(ev.TimerExpired, ev.SheriffCheck),
    Phase.FINAL_MINUTE: _kinds(ev.TimerExpired),
    Phase.OVER: _kinds(ev.SetManual),
}

# The table apply looks up: each phase's events, plus ANY_TIME while the game runs.
ACCEPTS: dict[Phase, frozenset[type[Any]]] = {
    phase: events if phase in (Phase.LOBBY, Phase.OVER) else events | ANY_TIME
    for phase, events in PHASE_EVENTS.items()
}

# What the end of the running timer leads to, by phase.
TIMER_STEPS: dict[Phase, Callable[[Step], None]] = {
    Phase.BLACK_MEETING: night.after_black_meeting,
    Phase.DON_MEETING: night.after_don_meeting,
    Phase.SHERIFF_MEETING: night.after_sheriff_meeting,
    Phase.FREE_SEATING: day.begin_day,
    Phase.MORNING_LAST_WORD: day.end_speech,
    Phase.SPEECH: day.end_speech,
    Phase.BEFORE_VOTE: voting.begin_vote,
    Phase.VOTE_INTRO: voting.open_first_round,
    Phase.VOTING: voting.after_window,
    Phase.DEFENSE: day.end_speech,
    Phase.REVOTE_PAUSE: ties.start_revote,
    Phase.LAST_WORD: day.end_speech,
    Phase.SHOT: night.after_shot,
    Phase.DON_CHECK: night.after_don_check,
    Phase.SHERIFF_CHECK: night.after_sheriff_check,
    Phase.FINAL_MINUTE: ending.game_over,
}

_NAMES = {cls: name for name, cls in EVENT_TYPES.items()}


def accepts(state: GameState, kind: type[Any]) -> bool:
    """Does the current phase accept events of this kind (the transition table)?"""
    return kind in ACCEPTS[state.phase]


def _not_now(state: GameState, event: ev.Event) -> IllegalAction:
    """The refusal for a missing table entry: it names the event and the phase."""
    name = _NAMES[type(event)]
    phase = state.phase
    if phase is Phase.OVER:
        why = "the game is over"
    elif phase is Phase.LOBBY:
        why = "the game has not started"
    else:
        why = f"the {phase.value} phase does not take it"
    if isinstance(event, ev.HostChoice) and phase is not Phase.OVER:
        from .guards import why_no_dialog

        why += f"; {why_no_dialog(state)}"
    return IllegalAction("not_now", f"{name} in phase {phase.value}: {why}")


def _on_start(st: Step, event: ev.StartGame) -> None:
    st.s.period = 0
    st.effects.append(SetSpeakers(seats=frozenset()))
    st.say("night")
    st.s.phase = Phase.BLACK_MEETING
    st.say("night.black_meeting")
    st.timer(st.rules.black_meeting_seconds, "black_meeting")


def _on_timer(st: Step, event: ev.TimerExpired) -> None:
    s = st.s
    if s.timer is None or event.timer != s.timer.id:
        raise IllegalAction("stale_timer", f"timer {event.timer} is not the running timer")
    expired = s.timer
    TIMER_STEPS[s.phase](st)
    if s.timer is expired:  # the next step waits for a person: say that no timer runs
        st.wait()


HANDLERS: dict[type[Any], Callable[[Step, Any], None]] = {
    ev.StartGame: _on_start,
    ev.TimerExpired: _on_timer,
    ev.Nominate: day.on_nominate,
    ev.PassSpeech: day.on_pass,
    ev.BestMove: day.on_best_move,
    ev.CastVote: voting.on_vote,
    ev.CastLift: voting.on_lift,
    ev.HostChoice: ties.on_choice,
    ev.SetManual: ties.on_manual,
    ev.PlayerLeft: removals.on_leave,
    ev.Foul: removals.on_foul,
    ev.Disqualify: removals.on_disqualify,
    ev.Shoot: night.on_shoot,
    ev.DonCheck: night.on_don_check,
    ev.SheriffCheck: night.on_sheriff_check,
    ev.EndGame: ending.on_end_game,
}

_new_object = object.__new__


def apply(state: GameState, event: ev.Event) -> tuple[GameState, list[Effect]]:
    """Apply one event: the new state and the effects, or a refusal (state unchanged)."""
    kind = type(event)
    handler = HANDLERS.get(kind)
    if handler is None:
        raise InvalidAction("bad_event", f"not an engine event: {event!r}")
    if kind not in ACCEPTS[state.phase]:
        raise _not_now(state, event)
    st = _new_object(Step)  # the step's three slots are set here, without an __init__ call
    st.s = s = clone_state(state)
    if s.vote is not None:
        s.vote = clone_vote(s.vote)
    st.rules = s.rules
    st.effects = []
    handler(st, event)
    s.version += 1
    return s, st.effects
