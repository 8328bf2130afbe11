"""A small driver for engine tests: apply events, let timers run out, collect effects."""

from __future__ import annotations

from typing import Any

from plugin.rules import apply, load_preset, new_game, new_vote
from plugin.rules import events as ev
from plugin.rules.effects import Announce, Effect
from plugin.rules.state import GameState, Phase


class Driver:
    def __init__(self, state: GameState) -> None:
        self.state = state
        self.effects: list[Effect] = []
        self.log: list[ev.Event] = []  # every accepted event, for replays

    @classmethod
    def vote(cls, rules: str = "classic", players: int = 10, **kwargs: Any) -> Driver:
        settings = kwargs.pop("settings", {})
        return cls(new_vote(load_preset(rules, settings), players=players, **kwargs))

    @classmethod
    def game(cls, rules: str = "classic", roles: dict[int, str] | None = None, **kw: Any) -> Driver:
        settings = kw.pop("settings", {})
        roles = roles or {2: "don", 5: "mafia", 8: "mafia", 9: "sheriff"}
        driver = cls(new_game(load_preset(rules, settings), roles=roles, **kw))
        driver.log = []
        driver.send(ev.StartGame())
        return driver

    def send(self, event: ev.Event) -> list[Effect]:
        self.state, effects = apply(self.state, event)
        self.log.append(event)
        self.effects += effects
        return effects

    def tick(self) -> list[Effect]:
        assert self.state.timer is not None, f"no timer in {self.state.phase}"
        return self.send(ev.TimerExpired(timer=self.state.timer.id))

    def until(self, predicate: Any, limit: int = 500) -> None:
        for _ in range(limit):
            if predicate(self.state):
                return
            self.tick()
        raise AssertionError(f"never reached; stuck in {self.state.phase}")

    def until_phase(self, phase: Phase) -> None:
        self.until(lambda s: s.phase is phase)

    def until_round(self) -> None:
        self.until(lambda s: s.phase is Phase.VOTING)

    def votes(self, *ballots: tuple[int, int | None]) -> None:
        for voter, candidate in ballots:
            self.send(ev.CastVote(voter=voter, candidate=candidate))

    def ballots(self, *ballots: tuple[int, int | None]) -> None:
        """Cast a round's ballots as players would: abstentions at once, then each ballot
        in its candidate's window (sequential voting), letting the windows pass."""
        self.until_round()
        r = self.state.vote.round
        if self.state.rules.voting_mode != "sequential":
            self.votes(*ballots)
            return
        self.votes(*[b for b in ballots if b[1] is None])
        for index, candidate in enumerate(r.candidates):
            self.until(lambda s, i=index: s.vote.round.window == i)
            self.votes(*[b for b in ballots if b[1] == candidate])
        number = r.number
        self.until(lambda s: s.phase is not Phase.VOTING or s.vote.round.number != number)

    def said(self) -> list[str]:
        return [e.key for e in self.effects if isinstance(e, Announce)]

    def result(self) -> dict[str, Any]:
        from plugin.rules.effects import VoteFinished

        finished = [e for e in self.effects if isinstance(e, VoteFinished)]
        assert finished, "the vote has not finished"
        return finished[-1].result
