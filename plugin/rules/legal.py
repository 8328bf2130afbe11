"""What may happen now: asking is separate from doing (python-chess's legal_moves / push).

`legal_actions(state)` lists concrete events that `apply` accepts in this state: an event
kind the transition table (machine.ACCEPTS) accepts in this phase, filtered by the same
guard its handler uses (guards.py), so listing and applying never disagree. It leaves out
the events that are legal at any moment for any seat in the game (PlayerLeft, Foul,
Disqualify, EndGame, SetManual); `always_legal(state)` lists those. A best move (three
seats out of the table) is listed once, as an example of the kind.
"""

from __future__ import annotations

from . import events as ev
from . import guards
from .machine import accepts
from .modes import Choice, RoundKind
from .state import GameState, Phase


def legal_actions(state: GameState) -> list[ev.Event]:
    """Events `apply` accepts now, besides the always-legal ones."""
    s = state
    if s.over:
        return []
    if s.phase is Phase.LOBBY:
        return [ev.StartGame()]
    actions: list[ev.Event] = []
    if s.timer is not None:
        actions.append(ev.TimerExpired(timer=s.timer.id))
    seats = range(1, s.players + 1)
    speaker = s.speaker
    if speaker is not None and accepts(s, ev.PassSpeech) and guards.passing(s, speaker) is None:
        actions.append(ev.PassSpeech(seat=speaker))
    if speaker is not None and accepts(s, ev.Nominate):
        actions += [
            ev.Nominate(by=speaker, target=seat)
            for seat in sorted(s.alive)
            if guards.nomination(s, speaker, seat) is None
        ]
    if speaker is not None and accepts(s, ev.BestMove) and guards.best_move(s, speaker) is None:
        others = [seat for seat in seats if seat != speaker]
        actions.append(ev.BestMove(by=speaker, seats=tuple(others[:3])))
    r = s.vote.round if s.phase is Phase.VOTING and s.vote is not None else None
    if r is not None and r.kind is RoundKind.LIFT:
        for voter in sorted(s.voters):  # in the round, in the game, not voted yet
            if guards.lift_ballot(s, voter) is None:
                actions += [
                    ev.CastLift(voter=voter, leave=True),
                    ev.CastLift(voter=voter, leave=False),
                ]
    elif r is not None:
        choices: tuple[int | None, ...] = (None, *r.candidates)
        for voter in sorted(s.voters):
            actions += [
                ev.CastVote(voter=voter, candidate=c)
                for c in choices
                if guards.ballot(s, voter, c) is None
            ]
    if accepts(s, ev.HostChoice):
        actions += [ev.HostChoice(choice=c) for c in Choice if guards.host_choice(s, c) is None]
    if accepts(s, ev.Shoot):
        # Every seat may be shot at (a seat out of the game makes a miss), and a second shot
        # is taken too (it counts, or misses under mafiaratings 8.7: night.py).
        actions += [
            ev.Shoot(by=by, target=target)
            for by in sorted(s.alive)
            if guards.shot(s, by) is None
            for target in seats
        ]
    if accepts(s, ev.DonCheck) and guards.check(s, "don") is None:
        actions += [ev.DonCheck(target=seat) for seat in seats]
    if accepts(s, ev.SheriffCheck) and guards.check(s, "sheriff") is None:
        actions += [ev.SheriffCheck(target=seat) for seat in seats]
    return actions


def always_legal(state: GameState) -> list[ev.Event]:
    """Events legal at any moment of a running game, for every seat still in it."""
    if state.over or state.phase is Phase.LOBBY:
        return []
    alive = sorted(state.alive)
    return [
        *(ev.Foul(seat=seat) for seat in alive),
        *(ev.PlayerLeft(seat=seat) for seat in alive),
        *(ev.Disqualify(seat=seat) for seat in alive),
        *always_legal_for_the_table(state),
    ]


def always_legal_for_the_table(state: GameState) -> list[ev.Event]:
    """The part of always_legal that names no seat (the host's console asks for it at
    every change, and has the seats' own corrections from the seats in the game)."""
    if state.over or state.phase is Phase.LOBBY:
        return []
    return [ev.SetManual(on=not state.manual), ev.EndGame(winner=None)]
