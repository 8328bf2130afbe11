"""Who may send which input, and what the table does with it: one table, `ROUTES`.

Theory of operation. Every input type (plugin.host.inputs) has one route: who may send it
(a player as himself, the host, the table's clock or its room) and what it means, either
the engine events it may become, in order of preference (the table applies the first one
the engine accepts), or the table's own action (plugin.host.actions: pause, extra time, the
clock's timers...). A type with no route is refused as an unknown command, a sender the
route does not name is refused before anything else is looked at, and a spectator is
refused everything; nothing changes on a refusal. A player's input always acts as the
sender's own seat (issue 4).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from plugin.rules import Effect, Event, GameState, Phase, RuleError, apply
from plugin.rules import events as ev

from . import actions
from . import inputs as asked
from .inputs import HOST, WATCH, Input, Refused, Sender, Verdict

if TYPE_CHECKING:
    from .table import Table


class Who(Enum):
    """Who may send an input."""

    PLAYER = "player"  # any seat, as himself
    HOST = "host"
    CLOCK = "clock"  # the table's own timers
    ROOM = "room"  # the table's own call


# (state, sender, input) -> the engine events the input may mean, in order of preference.
Translate = Callable[[GameState, Any, Any], list[Event]]
# (table, input, client id) -> the verdict, for what the table does itself.
Action = Callable[["Table", Any, "str | None"], Awaitable[Verdict]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    """Who may send an input, and what it means: engine events, or the table's action.

    `moves_on`: the host moved the game on; the bot stops reading what it had queued for
    the moments he skipped, and the input is handled on its own (never in a batch).
    `none_accepted`: the refusal when no candidate event applies (default: the engine's
    reason for the first)."""

    by: Who
    events: Translate | None = None
    act: Action | None = None
    moves_on: bool = False
    none_accepted: tuple[str, str] | None = None

    @property
    def batchable(self) -> bool:
        """A plain engine input: it may share its commit with its queue neighbours."""
        return self.events is not None and not self.moves_on


def route(sender: Sender, given: Input) -> Route:
    """The route of `given` when `sender` may send it; Refused (with why) otherwise."""
    if sender == WATCH:
        raise Refused("spectator", "a spectator watches: he can neither speak nor vote")
    found = ROUTES.get(type(given))
    kind = getattr(given, "kind", type(given).__name__)
    if found is None:
        raise Refused("unknown_command", f"unknown command {kind!r}")
    if found.by is Who.PLAYER:
        if not isinstance(sender, int):
            raise Refused("players_only", f"{kind!r} is sent by a player, as himself")
    elif found.by is Who.HOST:
        if sender != HOST:
            raise Refused("host_only", f"{kind!r} is a host console action")
    elif sender != found.by.value:
        raise Refused("table_only", f"{kind!r} comes from the table's own {found.by.value}")
    return found


def candidate_events(state: GameState, sender: Sender, given: Input) -> list[Event]:
    """The engine events `given` may mean from `sender`, in order of preference; Refused
    when the sender may not send it or it is not an engine input."""
    found = route(sender, given)
    if found.events is None:
        raise Refused("unknown_command", f"{given.kind!r} is not an engine input")
    return found.events(state, sender, given)


def first_accepted(
    state: GameState, sender: Sender, given: Input
) -> tuple[Event, GameState, list[Effect]]:
    """Apply the input's candidate events to `state` until the engine accepts one."""
    refusals: list[RuleError] = []
    for event in candidate_events(state, sender, given):
        try:
            new_state, effects = apply(state, event)
        except RuleError as refusal:
            refusals.append(refusal)
            continue
        return event, new_state, effects
    found = ROUTES[type(given)].none_accepted
    if found is not None:
        raise Refused(*found)
    first = refusals[0]
    raise Refused(first.reason, first.message)


# --- the meanings --------------------------------------------------------------------------


def _check(role: str, event: Callable[[int], Event]) -> Translate:
    """A check made by the seat holding `role` (the engine's events do not name the checker)."""

    def translate(
        state: GameState, seat: int, given: asked.DonCheck | asked.SheriffCheck
    ) -> list[Event]:
        if state.role(seat) != role:
            raise Refused("not_your_role", f"only the {role} makes this check")
        return [event(given.target)]

    return translate


def _end_speech(state: GameState, sender: Sender, given: Input) -> list[Event]:
    """End a speech: the speaker passes (the host for him), or the running timer runs out."""
    found: list[Event] = [ev.PassSpeech(seat=s) for s in _current_speakers(state)]
    found += _expire(state)
    if not found:
        raise Refused("no_speech", "nobody is speaking and no timer runs")
    return found


def _next(state: GameState, sender: Sender, given: Input) -> list[Event]:
    """The host's one key for "the next expected step": start the revote when the engine
    waits for it, close the open dialog with its default, else end the running timer."""
    found: list[Event] = []
    if state.dialog is not None:
        found.append(ev.HostChoice(choice="close"))
    found.append(ev.HostChoice(choice="start_revote"))
    found += _expire(state)
    if state.phase is Phase.LOBBY:
        found.append(ev.StartGame())
    return found


def _current_speakers(state: GameState) -> list[int]:
    if state.speaker is not None:
        return [state.speaker]
    speakers = sorted(state.speakers)
    return speakers if len(speakers) == 1 else []


def _expire(state: GameState) -> list[Event]:
    return [] if state.timer is None else [ev.TimerExpired(timer=state.timer.id)]


def _player(translate: Translate) -> Route:
    return Route(by=Who.PLAYER, events=translate)


def _host(translate: Translate) -> Route:
    return Route(by=Who.HOST, events=translate)


ROUTES: dict[type[Input], Route] = {
    # A player's input -> the engine events it means; the seat is always the sender's own.
    asked.Vote: _player(lambda s, seat, i: [ev.CastVote(voter=seat, candidate=i.candidate)]),
    asked.Lift: _player(lambda s, seat, i: [ev.CastLift(voter=seat, leave=i.leave)]),
    asked.Nominate: _player(lambda s, seat, i: [ev.Nominate(by=seat, target=i.target)]),
    asked.Pass: _player(lambda s, seat, i: [ev.PassSpeech(seat=seat)]),
    asked.Shoot: _player(lambda s, seat, i: [ev.Shoot(by=seat, target=i.target)]),
    asked.DonCheck: _player(_check("don", lambda target: ev.DonCheck(target=target))),
    asked.SheriffCheck: _player(_check("sheriff", lambda target: ev.SheriffCheck(target=target))),
    asked.BestMove: _player(lambda s, seat, i: [ev.BestMove(by=seat, seats=tuple(i.seats))]),
    asked.Leave: _player(lambda s, seat, i: [ev.PlayerLeft(seat=seat)]),
    # A host console input -> the engine events it may mean, in order of preference.
    asked.Start: _host(lambda s, host, i: [ev.StartGame()]),
    asked.Manual: _host(lambda s, host, i: [ev.SetManual(on=i.on)]),
    asked.Choice: _host(lambda s, host, i: [ev.HostChoice(choice=i.choice)]),
    asked.GiveFoul: _host(lambda s, host, i: [ev.Foul(seat=i.seat)]),
    asked.Disqualify: _host(lambda s, host, i: [ev.Disqualify(seat=i.seat)]),
    asked.Remove: _host(lambda s, host, i: [ev.PlayerLeft(seat=i.seat)]),
    asked.EndGame: _host(lambda s, host, i: [ev.EndGame(winner=i.winner)]),
    asked.EndSpeech: _host(_end_speech),
    asked.Next: Route(
        by=Who.HOST,
        events=_next,
        moves_on=True,
        none_accepted=("no_next_step", "nothing is waiting for the host now"),
    ),
    # The console's inputs the table handles itself (timers, the log), not engine events.
    asked.Pause: Route(by=Who.HOST, act=actions.pause_or_resume),
    asked.Resume: Route(by=Who.HOST, act=actions.pause_or_resume),
    asked.AddTime: Route(by=Who.HOST, act=actions.add_time),
    asked.Stream: Route(by=Who.HOST, act=actions.stream),
    asked.Undo: Route(by=Who.HOST, act=actions.undo),
    # The table's own clock and room.
    asked.Expire: Route(by=Who.CLOCK, act=actions.expire),
    asked.Warn: Route(by=Who.CLOCK, act=actions.warn),
    asked.StreamDue: Route(by=Who.CLOCK, act=actions.stream_due),
    asked.HoldOver: Route(by=Who.CLOCK, act=actions.hold_over),
    asked.Presence: Route(by=Who.ROOM, act=actions.presence),
    asked.Heard: Route(by=Who.ROOM, act=actions.heard),
}
