"""What a table is asked, and what it answers: every input as a frozen dataclass.

An input says what its sender asks, never who he is: the seat comes from the verified token
(a seat number, "host", or "watch" for a spectator, who may send nothing) or from the table
itself ("clock" for its timers, "room" for its call), and a player's input always acts as
that seat (issue 4). The inputs carry the names of the widget's and the console's messages
(plugin/web/messages.py, docs/protocol.md); which engine event an input becomes, and who
may send it, is plugin.host.commands's table. The client's message id travels beside the
input (Table.submit), not in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

HOST: Literal["host"] = "host"
CLOCK: Literal["clock"] = "clock"
ROOM: Literal["room"] = "room"
WATCH: Literal["watch"] = "watch"  # a spectator (plugin.signing.WATCH): watches, never acts
Sender = int | Literal["host", "clock", "room", "watch"]

ADD_TIME_SECONDS = 30  # issue 4: "add 30 s to a speech"


def source_of(sender: Sender) -> str:
    """How the log names a sender: "3", "host", "clock"."""
    return str(sender)


@dataclass(frozen=True, slots=True, kw_only=True)
class Input:
    """One thing a table is asked. `kind` is the message's name on the wire and in errors."""

    kind: ClassVar[str]


# --- a player's (the seat is the sender's own) ----------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Vote(Input):
    kind = "vote"
    candidate: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Lift(Input):
    kind = "lift"
    leave: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Nominate(Input):
    kind = "nominate"
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Pass(Input):
    kind = "pass"


@dataclass(frozen=True, slots=True, kw_only=True)
class Shoot(Input):
    kind = "shoot"
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DonCheck(Input):
    kind = "don_check"
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SheriffCheck(Input):
    kind = "sheriff_check"
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BestMove(Input):
    kind = "best_move"
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(Input):
    """A player leaves the game of his own will."""

    kind = "leave"


# --- the host console's ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Start(Input):
    kind = "start"


@dataclass(frozen=True, slots=True, kw_only=True)
class Manual(Input):
    kind = "manual"
    on: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice(Input):
    """The host's answer to the engine's open dialog (plugin.rules.modes.Choice names them)."""

    kind = "choice"
    choice: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Pause(Input):
    kind = "pause"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(Input):
    kind = "resume"


@dataclass(frozen=True, slots=True, kw_only=True)
class AddTime(Input):
    kind = "add_time"
    seconds: int = ADD_TIME_SECONDS


@dataclass(frozen=True, slots=True, kw_only=True)
class Stream(Input):
    """Stream with roles: the overlay shows roles and night actions `delay` s after them."""

    kind = "stream"
    on: bool
    delay: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class EndSpeech(Input):
    kind = "end_speech"


@dataclass(frozen=True, slots=True, kw_only=True)
class GiveFoul(Input):
    kind = "foul"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Disqualify(Input):
    kind = "disqualify"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Remove(Input):
    """The host removes a player who left (PlayerLeft for that seat)."""

    kind = "remove"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Undo(Input):
    kind = "undo"


@dataclass(frozen=True, slots=True, kw_only=True)
class EndGame(Input):
    kind = "end_game"
    winner: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Next(Input):
    """The host's one key for "the next expected step"."""

    kind = "next"


# --- the table's own: its clock and its room ---------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Expire(Input):
    """The countdown of timer `timer` ran out."""

    kind = "expire"
    timer: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Warn(Input):
    """Timer `timer` is near its end: the speaker is warned."""

    kind = "warn"
    timer: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamDue(Input):
    """A change is old enough now for the stream overlay (plugin.host.stream)."""

    kind = "stream_due"


@dataclass(frozen=True, slots=True, kw_only=True)
class HoldOver(Input):
    """The speech's countdown waited its longest for the speakers' audio (audio_wait.py)."""

    kind = "hold_over"


@dataclass(frozen=True, slots=True, kw_only=True)
class Heard(Input):
    """Seat `seat`'s audio reaches the room's listeners since his grant (first_word.py)."""

    kind = "heard"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Presence(Input):
    """Seat `seat` joined (or left) the call."""

    kind = "presence"
    seat: int
    joined: bool


# --- the answer ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What the sender is told: accepted (maybe as a duplicate of an earlier message, with
    the sequence number it was logged under) or refused, with a stable code and why."""

    ok: bool
    duplicate: bool = False
    code: str | None = None
    message: str | None = None
    seq: int | None = None


STOPPING = Verdict(ok=False, code="stopping", message="the table is shutting down")


class Refused(Exception):
    """The table refuses an input; nothing changed. `code` is stable, `message` explains."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def verdict(self) -> Verdict:
        return Verdict(ok=False, code=self.code, message=self.message)
