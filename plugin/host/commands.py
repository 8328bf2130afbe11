"""Who may send what, and which engine event a message becomes.

A command is a protocol message type with its fields; the sender comes from the verified
token (a seat number or "host") or from the table itself ("clock"). The seat of a player
command is always the sender's: a player votes only as himself (issue 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from plugin.rules import events as ev

HOST: Literal["host"] = "host"
CLOCK: Literal["clock"] = "clock"
Sender = int | Literal["host", "clock"]

PLAYER_COMMANDS = frozenset(
    {
        "vote",
        "lift",
        "nominate",
        "pass",
        "shoot",
        "don_check",
        "sheriff_check",
        "best_move",
        "leave",
    }
)
# Handled by the table itself (timers, the log); not engine events.
TABLE_COMMANDS = frozenset({"pause", "resume", "add_time", "undo"})
HOST_COMMANDS = TABLE_COMMANDS | {
    "start", "manual", "choice", "end_speech", "foul", "disqualify", "remove", "end_game", "next",
}  # fmt: skip


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
    if command.kind in PLAYER_COMMANDS:
        if not isinstance(sender, int):
            raise Refused("players_only", f"{command.kind!r} is sent by a player, as himself")
    elif command.kind in HOST_COMMANDS:
        if sender != HOST:
            raise Refused("host_only", f"{command.kind!r} is a host console action")
    else:
        raise Refused("unknown_command", f"unknown command {command.kind!r}")


def candidate_events(state: Any, sender: Sender, command: Command) -> list[Any]:
    """The engine events this command may mean, in order of preference; the table applies
    the first one the engine accepts. Refused when none can apply."""
    f = command.fields
    kind = command.kind
    if isinstance(sender, int):
        seat = sender
        if kind == "vote":
            return [ev.CastVote(voter=seat, candidate=f["candidate"])]
        if kind == "lift":
            return [ev.CastLift(voter=seat, leave=f["leave"])]
        if kind == "nominate":
            return [ev.Nominate(by=seat, target=f["target"])]
        if kind == "pass":
            return [ev.PassSpeech(seat=seat)]
        if kind == "shoot":
            return [ev.Shoot(by=seat, target=f["target"])]
        if kind == "don_check":
            _require_role(state, seat, "don")
            return [ev.DonCheck(target=f["target"])]
        if kind == "sheriff_check":
            _require_role(state, seat, "sheriff")
            return [ev.SheriffCheck(target=f["target"])]
        if kind == "best_move":
            return [ev.BestMove(by=seat, seats=tuple(f["seats"]))]
        if kind == "leave":
            return [ev.PlayerLeft(seat=seat)]
    if kind == "start":
        return [ev.StartGame()]
    if kind == "manual":
        return [ev.SetManual(on=f["on"])]
    if kind == "choice":
        return [ev.HostChoice(choice=f["choice"])]
    if kind == "foul":
        return [ev.Foul(seat=f["seat"])]
    if kind == "disqualify":
        return [ev.Disqualify(seat=f["seat"])]
    if kind == "remove":
        return [ev.PlayerLeft(seat=f["seat"])]
    if kind == "end_game":
        return [ev.EndGame(winner=f.get("winner"))]
    if kind == "end_speech":
        # End a speech: the speaker passes (the host for him), or the running timer runs out.
        found: list[Any] = [ev.PassSpeech(seat=s) for s in _current_speakers(state)]
        found += _expire(state)
        if not found:
            raise Refused("no_speech", "nobody is speaking and no timer runs")
        return found
    if kind == "next":
        # The host's one key for "the next expected step": start the revote when the engine
        # waits for it, close the open dialog with its default, else end the running timer.
        found = []
        if getattr(state, "dialog", None) is not None:
            found.append(ev.HostChoice(choice="close"))
        found.append(ev.HostChoice(choice="start_revote"))
        found += _expire(state)
        if _phase_name(state) == "lobby":
            found.append(ev.StartGame())
        return found
    raise Refused("unknown_command", f"unknown command {kind!r}")


def _require_role(state: Any, seat: int, role: str) -> None:
    if state.role(seat) != role:
        raise Refused("not_your_role", f"only the {role} makes this check")


def _current_speakers(state: Any) -> list[int]:
    speaker = getattr(state, "speaker", None)
    if speaker is not None:
        return [speaker]
    speakers = sorted(getattr(state, "speakers", ()))
    return speakers if len(speakers) == 1 else []


def _expire(state: Any) -> list[Any]:
    timer = getattr(state, "timer", None)
    return [] if timer is None else [ev.TimerExpired(timer=timer.id)]


def _phase_name(state: Any) -> str:
    phase = getattr(state, "phase", None)
    return str(getattr(phase, "value", phase))
