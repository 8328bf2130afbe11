"""What may happen now: asking is separate from doing (python-chess's legal_moves / push).

`legal_actions(state)` lists concrete events that `apply` accepts in this state. It leaves
out the events that are legal at any moment for any seat in the game (PlayerLeft, Foul,
Disqualify, EndGame, SetManual); `always_legal(state)` lists those.
"""

from __future__ import annotations

from . import events as ev
from .state import GameState, Phase


def legal_actions(state: GameState) -> list[ev.Event]:
    """Events `apply` accepts now, besides the always-legal ones."""
    s = state
    if s.over:
        return []
    actions: list[ev.Event] = []
    if s.phase is Phase.LOBBY:
        return [ev.StartGame()]
    if s.timer is not None:
        actions.append(ev.TimerExpired(timer=s.timer.id))
    alive = sorted(s.alive)
    if s.speaker is not None and s.phase in (
        Phase.SPEECH,
        Phase.DEFENSE,
        Phase.LAST_WORD,
        Phase.MORNING_LAST_WORD,
    ):
        actions.append(ev.PassSpeech(seat=s.speaker))
    if s.phase is Phase.SPEECH and s.speaker is not None:
        day = s.days[-1]
        if not any(by == s.speaker for by, _ in day.nominations):
            taken = {target for _, target in day.nominations}
            actions += [
                ev.Nominate(by=s.speaker, target=seat) for seat in alive if seat not in taken
            ]
    if s.best_move_open and s.speaker is not None:
        others = [seat for seat in range(1, s.players + 1) if seat != s.speaker]
        actions.append(ev.BestMove(by=s.speaker, seats=tuple(others[:3])))
    if s.phase is Phase.VOTING and s.vote is not None and s.vote.round is not None:
        r = s.vote.round
        for voter in sorted(s.voters):
            if r.kind == "lift":
                actions += [
                    ev.CastLift(voter=voter, leave=True),
                    ev.CastLift(voter=voter, leave=False),
                ]
                continue
            if s.rules.abstention_allowed:
                actions.append(ev.CastVote(voter=voter, candidate=None))
            if s.rules.voting_mode == "sequential":
                choices = [r.candidates[r.window]]
            else:
                choices = list(r.candidates)
            actions += [
                ev.CastVote(voter=voter, candidate=c)
                for c in choices
                if c != voter or s.rules.self_vote_allowed
            ]
    if s.phase is Phase.DIALOG and s.dialog is not None:
        actions += [ev.HostChoice(choice=c) for c in (*s.dialog.options, "close")]
    if s.phase is Phase.AWAIT_REVOTE:
        actions.append(ev.HostChoice(choice="start_revote"))
    if s.phase is Phase.SHOT:
        shot = {by for by, _ in s.nights[-1].shots}
        actions += [
            ev.Shoot(by=by, target=target)
            for by in alive
            if s.is_black(by) and by not in shot
            for target in alive
        ]
    for role, phase, done, make in (
        ("don", Phase.DON_CHECK, "don_check", ev.DonCheck),
        ("sheriff", Phase.SHERIFF_CHECK, "sheriff_check", ev.SheriffCheck),
    ):
        checker = s.seat_of(role)
        if s.phase is phase and checker in s.alive and getattr(s.nights[-1], done) is None:
            actions += [make(target=seat) for seat in range(1, s.players + 1)]
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
        ev.SetManual(on=not state.manual),
        ev.EndGame(winner=None),
    ]
