"""The messages of the table socket, `/ws`: the one wire protocol of the player widget and
the host console (docs/protocol.md). Not the game's protocol (`plugin/protocol`, the
judge's record of a game).

Client → server messages are msgspec tagged structs: {"v": 1, "id": "<client msg id>",
"type": "...", ...}. Unknown fields, unknown types, wrong types and messages over
MAX_MESSAGE_BYTES are refused with an error code; the connection stays open.
Server → client: {"type": "state", ...}, {"type": "ack", ...}, {"type": "error", ...}, and
{"type": "moved", "table", "token"} when the host started the next game at another table.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from plugin.host import inputs

from . import wire

VERSION = 1
MAX_MESSAGE_BYTES = 4096

ClientId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Seat = Annotated[int, msgspec.Meta(ge=1, le=99)]


class Message(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    """Every client message carries the protocol version and a client message id."""

    v: int
    id: ClientId


# --- player messages (the seat is the token's, never the message's) ---------------------


class Vote(Message, tag="vote"):
    candidate: Seat | None


class Lift(Message, tag="lift"):
    leave: bool


class Nominate(Message, tag="nominate"):
    target: Seat


class Pass(Message, tag="pass"):
    pass


class Shoot(Message, tag="shoot"):
    target: Seat


class DonCheck(Message, tag="don_check"):
    target: Seat


class SheriffCheck(Message, tag="sheriff_check"):
    target: Seat


class BestMove(Message, tag="best_move"):
    seats: Annotated[list[Seat], msgspec.Meta(max_length=3)]


class Leave(Message, tag="leave"):
    """A player leaves the game of his own will."""


# --- host console messages ---------------------------------------------------------------


class Start(Message, tag="start"):
    pass


class Manual(Message, tag="manual"):
    on: bool


class Choice(Message, tag="choice"):
    choice: Literal["speeches", "revote", "end", "close", "start_revote"]


class Pause(Message, tag="pause"):
    pass


class Resume(Message, tag="resume"):
    pass


class AddTime(Message, tag="add_time"):
    seconds: Annotated[int, msgspec.Meta(ge=1, le=300)] = 30


class Stream(Message, tag="stream"):
    """Stream with roles: the overlay shows roles and night actions `delay` s after them."""

    on: bool
    delay: Annotated[int, msgspec.Meta(ge=0, le=600)] = 0


class EndSpeech(Message, tag="end_speech"):
    pass


class GiveFoul(Message, tag="foul"):
    seat: Seat


class Disqualify(Message, tag="disqualify"):
    seat: Seat


class Remove(Message, tag="remove"):
    """The host removes a player who left (PlayerLeft for that seat)."""

    seat: Seat


class Undo(Message, tag="undo"):
    pass


class EndGame(Message, tag="end_game"):
    winner: Literal["city", "mafia", "draw"] | None = None


class Next(Message, tag="next"):
    pass


ClientMessage = (
    Vote | Lift | Nominate | Pass | Shoot | DonCheck | SheriffCheck | BestMove | Leave
    | Start | Manual | Choice | Pause | Resume | AddTime | EndSpeech | GiveFoul | Disqualify
    | Remove | Undo | EndGame | Next | Stream
)  # fmt: skip

_decoder = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


class ProtocolError(Exception):
    """A message refused before it reaches the table. code: too_large | bad_json |
    bad_message | bad_version. `id` is the client message id when it could be read."""

    def __init__(self, code: str, message: str, id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id


def decode(raw: str | bytes) -> Message:
    """Validate one client message; ProtocolError says why it is refused."""
    data = raw.encode() if isinstance(raw, str) else raw
    try:
        message: Message = wire.decode(_decoder, data, MAX_MESSAGE_BYTES)
    except wire.Refused as refusal:
        # Valid JSON of the wrong shape may still carry an id the error can name.
        id = _salvage_id(data) if refusal.code == "bad_message" else None
        raise ProtocolError(refusal.code, refusal.message, id) from None
    if message.v != VERSION:
        raise ProtocolError(
            "bad_version",
            f"protocol version {message.v} is not supported (use {VERSION})",
            message.id,
        )
    return message


def to_input(message: Message) -> inputs.Input:
    """The host input a validated client message asks for (its id travels beside it, and
    the seat comes from the sender's token, never from the message)."""
    match message:
        case Vote(candidate=candidate):
            return inputs.Vote(candidate=candidate)
        case Lift(leave=leave):
            return inputs.Lift(leave=leave)
        case Nominate(target=target):
            return inputs.Nominate(target=target)
        case Pass():
            return inputs.Pass()
        case Shoot(target=target):
            return inputs.Shoot(target=target)
        case DonCheck(target=target):
            return inputs.DonCheck(target=target)
        case SheriffCheck(target=target):
            return inputs.SheriffCheck(target=target)
        case BestMove(seats=seats):
            return inputs.BestMove(seats=tuple(seats))
        case Leave():
            return inputs.Leave()
        case Start():
            return inputs.Start()
        case Manual(on=on):
            return inputs.Manual(on=on)
        case Choice(choice=choice):
            return inputs.Choice(choice=choice)
        case Pause():
            return inputs.Pause()
        case Resume():
            return inputs.Resume()
        case AddTime(seconds=seconds):
            return inputs.AddTime(seconds=seconds)
        case Stream(on=on, delay=delay):
            return inputs.Stream(on=on, delay=delay)
        case EndSpeech():
            return inputs.EndSpeech()
        case GiveFoul(seat=seat):
            return inputs.GiveFoul(seat=seat)
        case Disqualify(seat=seat):
            return inputs.Disqualify(seat=seat)
        case Remove(seat=seat):
            return inputs.Remove(seat=seat)
        case Undo():
            return inputs.Undo()
        case EndGame(winner=winner):
            return inputs.EndGame(winner=winner)
        case Next():
            return inputs.Next()
    raise TypeError(f"no input for the message {message!r}")  # a new message type, unmapped


def _salvage_id(data: bytes) -> str | None:
    """The client message id of an invalid message, so the error can name it."""
    try:
        value = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    found = value.get("id") if isinstance(value, dict) else None
    return found if isinstance(found, str) and 0 < len(found) <= 64 else None


# --- server → client -----------------------------------------------------------------------


def encode_ack(id: str, *, duplicate: bool = False) -> bytes:
    return _encoder.encode({"type": "ack", "v": VERSION, "id": id, "duplicate": duplicate})


def encode_error(code: str, message: str, id: str | None = None) -> bytes:
    return _encoder.encode(
        {"type": "error", "v": VERSION, "id": id, "error": code, "message": message}
    )


def encode_moved(table: str, token: str) -> bytes:
    """The next game is at `table`: this page's seat there, with its token (sent over the
    page's authenticated socket only, never in a URL)."""
    return _encoder.encode({"type": "moved", "v": VERSION, "table": table, "token": token})


def encode_state(view: dict[str, Any]) -> bytes:
    return _encoder.encode({"type": "state", "v": VERSION, **view})


def encode_state_head(shared: dict[str, Any]) -> bytes:
    """The start of every state message that carries `shared` (a broadcast's keys common
    to its viewers, plugin.host.views.ViewSet.shared), for encode_state_tail."""
    return _encoder.encode({"type": "state", "v": VERSION, **shared})[:-1]


def encode_state_tail(head: bytes, own: dict[str, Any]) -> bytes:
    """encode_state({**shared, **own}) from encode_state_head(shared): only `own` is
    encoded. `own` has at least one key and none of `shared`'s (a JSON object must not
    repeat a key)."""
    return head + b"," + _encoder.encode(own)[1:]
