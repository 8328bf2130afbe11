"""Running a checked scenario on the real engine: inputs go in at the first moment they
become legal, timers run out one by one in between (the runner is the clock); the result
object of the contract (shared/conformance/README.md and GAME.md)."""

from __future__ import annotations

from typing import Any

from plugin.rules import events as ev
from plugin.rules.effects import Announce, OpenDialog, VoteFinished
from plugin.rules.errors import RuleError
from plugin.rules.machine import apply, new_game, new_vote
from plugin.rules.modes import VotingMode
from plugin.rules.state import GameState, Phase

from .files import MAX_STEPS, Scenario, ScenarioError, show, until_period


class _Runner:
    def __init__(self, state: GameState) -> None:
        self.state = state
        self.announcements: list[str] = []
        self.dialogs: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.refused: list[dict[str, Any]] = []
        self.fed: set[tuple[str, int, int]] = set()  # (what, day or night, round)
        self.per_day: dict[int, dict[str, list[dict[str, Any]]]] = {}
        self.steps = 0
        self.last_vote: dict[str, Any] | None = None
        self.stop_period: int | None = None  # the phase the runner stopped after

    # -- engine I/O
    def send(self, event: ev.Event) -> RuleError | None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise ScenarioError("the game did not end within the step limit")
        try:
            self.state, effects = apply(self.state, event)
        except RuleError as error:
            return error
        for effect in effects:
            if isinstance(effect, Announce):
                self.announcements.append(effect.key)
            elif isinstance(effect, OpenDialog):
                dialog = {
                    "kind": effect.kind,
                    "candidates": list(effect.candidates),
                    "options": list(effect.options),
                    "default": effect.default,
                }
                self.dialogs.append(dialog)
                self._day_list("dialogs").append(dialog)
            elif isinstance(effect, VoteFinished):
                self.last_vote = effect.result
        return None

    def _day_list(self, name: str) -> list[dict[str, Any]]:
        day = self.per_day.setdefault(self.state.day, {"dialogs": [], "rejected": []})
        return day[name]

    def tick(self) -> bool:
        """Let the running timer run out; False when no timer runs."""
        timer = self.state.timer
        if timer is None:
            return False
        error = self.send(ev.TimerExpired(timer=timer.id))
        assert error is None, error
        return True

    def settle(self, item: dict[str, Any] | None) -> None:
        """The runner answers for the live host when the next input is not his answer and
        needs the game to move on. A leave or a foul does not: it happens where it stands
        in the list, "as soon as the input before it has been processed, before any timer
        runs" (README), so with the dialog still open (a leaving candidate then gets no
        defense speech when it closes to speeches)."""
        s = self.state
        if item is not None and next(iter(item)) in ("leave", "foul"):
            return
        answer = item.get("host") if item else None
        if s.phase is Phase.DIALOG and answer is None:
            self.send(ev.HostChoice(choice="close"))
        elif s.phase is Phase.AWAIT_REVOTE and answer != "start_revote":
            self.send(ev.HostChoice(choice="start_revote"))

    # -- inputs
    def ready(self, item: dict[str, Any]) -> bool:
        s = self.state
        ((key, value),) = item.items()
        r = s.vote.round if s.vote is not None else None
        if key in ("leave", "foul"):
            return s.phase is not Phase.LOBBY
        if key == "until":
            return s.period >= until_period(value, "until")
        if key in ("nominate", "pass"):
            by = value[0] if key == "nominate" else value
            return s.phase is Phase.SPEECH and s.speaker == by
        if key in ("votes", "lift"):
            if s.phase is not Phase.VOTING or r is None or (r.kind == "lift") != (key == "lift"):
                return False
            return ("round", s.day, r.number) not in self.fed
        if key == "host":
            # README: the answer to the open dialog; GAME.md: "at the next round or dialog".
            # One that answers nothing (no dialog opened before the next round did) is
            # handed over at that round, refused and reported, never fatal: the ballots
            # after it still count.
            if s.phase in (Phase.DIALOG, Phase.AWAIT_REVOTE):
                return True
            return (
                s.phase is Phase.VOTING
                and r is not None
                and ("round", s.day, r.number) not in self.fed
            )
        if key == "shots":
            return s.phase is Phase.SHOT and ("shots", s.night, 0) not in self.fed
        if key in ("don_check", "sheriff_check"):
            # GAME.md: one check of each kind per night; a second waits for the next night.
            phase = Phase.DON_CHECK if key == "don_check" else Phase.SHERIFF_CHECK
            checker = s.seat_of("don" if key == "don_check" else "sheriff")
            fresh = (key, s.night, 0) not in self.fed
            return s.phase is phase and checker in s.alive and fresh
        if key == "best_move":
            return s.best_move_open
        return False

    def feed(self, item: dict[str, Any]) -> None:
        s = self.state
        ((key, value),) = item.items()
        if key == "until":
            return  # GAME.md: it does nothing else
        if key == "votes":
            self._feed_votes([tuple(pair) for pair in value])
        elif key == "lift":
            assert s.vote is not None and s.vote.round is not None
            self.fed.add(("round", s.day, s.vote.round.number))
            for voter, leave in value:
                self._ballot(ev.CastLift(voter=voter, leave=leave), voter, None)
        elif key == "shots":
            self.fed.add(("shots", s.night, 0))
            for by, target in value:
                self._refusable(item, ev.Shoot(by=by, target=target))
        else:
            if key in ("don_check", "sheriff_check"):
                self.fed.add((key, s.night, 0))
            self._refusable(item, _event(key, value, s))

    def _refusable(self, item: dict[str, Any], event: ev.Event) -> None:
        error = self.send(event)
        if error is not None:
            self.refused.append({"input": item, "reason": error.reason, "message": error.message})

    def _ballot(self, event: ev.Event, voter: int, candidate: int | None) -> None:
        error = self.send(event)
        if error is not None:
            entry = {"voter": voter, "candidate": candidate, "reason": error.reason}
            self.rejected.append(entry)
            self._day_list("rejected").append(entry)

    def _feed_votes(self, ballots: list[tuple[int, int | None]]) -> None:
        s = self.state
        assert s.vote is not None and s.vote.round is not None
        r = s.vote.round
        day, number = s.day, r.number
        self.fed.add(("round", day, number))
        if s.rules.voting_mode is not VotingMode.SEQUENTIAL:
            for voter, candidate in ballots:
                self._ballot(ev.CastVote(voter=voter, candidate=candidate), voter, candidate)
            return
        # README «Ballots»: abstentions and ballots for non-candidates go in while the first
        # window is open, then window by window in nomination order.
        groups: list[list[tuple[int, int | None]]] = [
            [b for b in ballots if b[1] is None or b[1] not in r.candidates]
        ]
        groups += [[b for b in ballots if b[1] == c] for c in r.candidates]
        for index, group in enumerate(groups):
            window = max(index - 1, 0)
            while not self._window_open(day, number, window):
                if not self._round_open(day, number) or not self.tick():
                    break
            for voter, candidate in group:
                self._ballot(ev.CastVote(voter=voter, candidate=candidate), voter, candidate)

    def _round_open(self, day: int, number: int) -> bool:
        s = self.state
        r = s.vote.round if s.vote is not None else None
        return s.phase is Phase.VOTING and r is not None and s.day == day and r.number == number

    def _window_open(self, day: int, number: int, window: int) -> bool:
        if not self._round_open(day, number):
            return False
        assert self.state.vote is not None and self.state.vote.round is not None
        return self.state.vote.round.window == window

    # -- the whole run
    def run(self, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Apply the inputs; returns those never applied."""
        last_period = self.state.period
        for index, item in enumerate(inputs):
            while True:
                if self.state.over:
                    return inputs[index:]
                self.settle(item)
                if self.ready(item):
                    last_period = self.state.period
                    self.feed(item)
                    break
                if not self.tick():
                    self._to_the_end()
                    return inputs[index:]
        self.until_phase_ends(last_period)
        return []

    def until_phase_ends(self, period: int) -> None:
        self.stop_period = period
        while not self.state.over and self.state.period == period:
            self.settle(None)
            if not self.tick():
                break

    def _to_the_end(self) -> None:
        while not self.state.over:
            self.settle(None)
            if not self.tick():
                break


def _event(key: str, value: Any, state: GameState) -> ev.Event:
    if key == "leave":
        return ev.PlayerLeft(seat=value)
    if key == "foul":
        return ev.Foul(seat=value)
    if key == "host":
        return ev.HostChoice(choice=value)
    if key == "nominate":
        return ev.Nominate(by=value[0], target=value[1])
    if key == "pass":
        return ev.PassSpeech(seat=value)
    if key == "don_check":
        return ev.DonCheck(target=value)
    if key == "sheriff_check":
        return ev.SheriffCheck(target=value)
    if key == "best_move":
        by = state.speaker if state.speaker is not None else 0
        return ev.BestMove(by=by, seats=tuple(value))
    if key == "until":
        raise AssertionError("until is handled by the runner")
    raise ScenarioError(f"unknown input {show(key)}")


def run(scenario: Scenario) -> dict[str, Any]:
    """Run a parsed scenario; the result object of the contract."""
    if scenario.kind == "vote":
        return _run_vote(scenario)
    return _run_game(scenario)


def _run_vote(sc: Scenario) -> dict[str, Any]:
    state = new_vote(
        sc.rules,
        players=sc.players,
        nominations=sc.nominations,
        out=sc.out,
        manual=sc.manual,
        day=sc.day,
    )
    runner = _Runner(state)
    unused = runner.run(sc.inputs)
    runner._to_the_end()
    vote = runner.last_vote or {
        "outcome": None,
        "eliminated": [],
        "rounds": [],
        "speeches": [],
        "next": None,
    }
    result = {key: value for key, value in vote.items() if key != "announcements"}
    result.update(
        announcements=runner.announcements,
        dialogs=runner.dialogs,
        rejected=runner.rejected,
        refused=runner.refused,
        unused=unused,
    )
    return result


def _run_game(sc: Scenario) -> dict[str, Any]:
    state = new_game(sc.rules, players=sc.players, roles=sc.roles, manual=sc.manual)
    runner = _Runner(state)
    runner.send(ev.StartGame())
    unused: list[dict[str, Any]]
    if sc.inputs:
        unused = runner.run(sc.inputs)
    else:
        runner.until_phase_ends(runner.state.period)  # GAME.md: stops before day 1
        unused = []
    return game_result(runner.state, runner, unused)


def game_result(
    state: GameState, runner: _Runner | None = None, unused: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The whole-game result object (GAME.md) for a state; the runner adds what it saw."""
    # Stop before the next phase: a day or night that began in the very step that ended the
    # runner's phase is not listed (its records hold nothing but its start).
    stop = runner.stop_period if runner is not None else None
    limit = state.period if state.over or stop is None else stop
    days = []
    for record in state.days:
        if 2 * record.day - 1 > limit:
            continue
        vote = dict(record.vote) if record.vote is not None else None
        if vote is not None and runner is not None:
            extra = runner.per_day.get(record.day, {})
            vote["dialogs"] = extra.get("dialogs", [])
            vote["rejected"] = extra.get("rejected", [])
        days.append(
            {
                "day": record.day,
                "opener": record.opener,
                "speakers": list(record.speakers),
                "nominations": [list(pair) for pair in record.nominations],
                "vote": vote,
            }
        )
    nights = [record.record() for record in state.nights if 2 * record.night <= limit]
    result: dict[str, Any] = {
        "winner": state.winner,
        "days": days,
        "nights": nights,
        "fouls": {str(seat): n for seat, n in enumerate(state.fouls, start=1) if n},
        "removed": list(state.removed),
        "best_move": state.best_move_record(),
        "roles": {str(seat): role for seat, role in enumerate(state.roles or (), start=1)},
        "unused": unused or [],
    }
    if runner is not None:
        result.update(
            announcements=runner.announcements,
            dialogs=runner.dialogs,
            rejected=runner.rejected,
            refused=runner.refused,
        )
    return result
