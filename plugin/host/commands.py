"""Who may send what, and which engine event a message becomes.

A command is a protocol message type with its fields; the sender comes from the verified
token (a seat number, "host", or "watch" for a spectator, who may send nothing) or from the
table itself ("clock"). The seat of a player
command is always the sender's: a player votes only as himself (issue 4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from plugin.rules import Event, GameState, Phase
from plugin.rules import events as ev

HOST: Literal["host"] = "host"
CLOCK: Literal["clock"] = "clock"
WATCH: Literal["watch"] = "watch"  # a spectator (plugin.signing.WATCH): watches, never acts
Sender = int | Literal["host", "clock", "watch"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """One input for a table. `client_id`: the client's message id (idempotent retries)."""

    kind: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    client_id: str | None = None


class Refused(Exception):
    """The table refuses an input; nothing changed. `code` is stable, `message` explains."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def source_of(sender: Sender) -> str:
    """How the log names a sender: "3", "host", "clock"."""
    return str(sender)


def authorize(sender: Sender, command: Command) -> None:
    """Refuse a command this sender may not give (before anything else is looked at)."""
    if sender == WATCH:
        raise Refused("spectator", "a spectator watches: he can neither speak nor vote")
    if command.kind in PLAYER_COMMANDS:
        if not isinstance(sender, int):
            raise Refused("players_only", f"{command.kind!r} is sent by a player, as himself")
    elif command.kind in HOST_COMMANDS:
        if sender != HOST:
            raise Refused("host_only", f"{command.kind!r} is a host console action")
    else:
        raise Refused("unknown_command", f"unknown command {command.kind!r}")


def candidate_events(state: GameState, sender: Sender, command: Command) -> list[Event]:
    """The engine events this command may mean, in order of preference; the table applies
    the first one the engine accepts. Refused when none can apply."""
    if isinstance(sender, int) and command.kind in PLAYER_EVENTS:
        return PLAYER_EVENTS[command.kind](state, sender, command.fields)
    if sender == HOST and command.kind in HOST_EVENTS:
        return HOST_EVENTS[command.kind](state, command.fields)
    raise Refused("unknown_command", f"unknown command {command.kind!r}")


Fields = Mapping[str, Any]


def _check(
    role: str, event: Callable[[int], Event]
) -> Callable[[GameState, int, Fields], list[Event]]:
    """A check made by the seat holding `role` (the engine's events do not name the checker)."""

    def translate(state: GameState, seat: int, fields: Fields) -> list[Event]:
        if state.role(seat) != role:
            raise Refused("not_your_role", f"only the {role} makes this check")
        return [event(fields["target"])]

    return translate


# A player's message -> the engine events it means; the seat is always the sender's own.
PLAYER_EVENTS: dict[str, Callable[[GameState, int, Fields], list[Event]]] = {
    "vote": lambda state, seat, f: [ev.CastVote(voter=seat, candidate=f["candidate"])],
    "lift": lambda state, seat, f: [ev.CastLift(voter=seat, leave=f["leave"])],
    "nominate": lambda state, seat, f: [ev.Nominate(by=seat, target=f["target"])],
    "pass": lambda state, seat, f: [ev.PassSpeech(seat=seat)],
    "shoot": lambda state, seat, f: [ev.Shoot(by=seat, target=f["target"])],
    "don_check": _check("don", lambda target: ev.DonCheck(target=target)),
    "sheriff_check": _check("sheriff", lambda target: ev.SheriffCheck(target=target)),
    "best_move": lambda state, seat, f: [ev.BestMove(by=seat, seats=tuple(f["seats"]))],
    "leave": lambda state, seat, f: [ev.PlayerLeft(seat=seat)],
}


def _end_speech(state: GameState, fields: Fields) -> list[Event]:
    """End a speech: the speaker passes (the host for him), or the running timer runs out."""
    found: list[Event] = [ev.PassSpeech(seat=s) for s in _current_speakers(state)]
    found += _expire(state)
    if not found:
        raise Refused("no_speech", "nobody is speaking and no timer runs")
    return found


def _next(state: GameState, fields: Fields) -> list[Event]:
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


# A host console message -> the engine events it may mean, in order of preference.
HOST_EVENTS: dict[str, Callable[[GameState, Fields], list[Event]]] = {
    "start": lambda state, f: [ev.StartGame()],
    "manual": lambda state, f: [ev.SetManual(on=f["on"])],
    "choice": lambda state, f: [ev.HostChoice(choice=f["choice"])],
    "foul": lambda state, f: [ev.Foul(seat=f["seat"])],
    "disqualify": lambda state, f: [ev.Disqualify(seat=f["seat"])],
    "remove": lambda state, f: [ev.PlayerLeft(seat=f["seat"])],
    "end_game": lambda state, f: [ev.EndGame(winner=f.get("winner"))],
    "end_speech": _end_speech,
    "next": _next,
}

PLAYER_COMMANDS = frozenset(PLAYER_EVENTS)
# Handled by the table itself (timers, the log); not engine events.
TABLE_COMMANDS = frozenset({"pause", "resume", "add_time", "undo", "stream"})
HOST_COMMANDS = TABLE_COMMANDS | frozenset(HOST_EVENTS)


def _current_speakers(state: GameState) -> list[int]:
    if state.speaker is not None:
        return [state.speaker]
    speakers = sorted(state.speakers)
    return speakers if len(speakers) == 1 else []


def _expire(state: GameState) -> list[Event]:
    return [] if state.timer is None else [ev.TimerExpired(timer=state.timer.id)]
