"""The video mesh's signalling relay: `/video?token=...` (issue 8, docs/video.md).

Video goes browser to browser: every page opens one RTCPeerConnection per other page of
its table. This WebSocket only introduces the pages and carries their offers, answers and
ICE candidates. Theory of operation:
- A connection is admitted by its signed token (tokens.py): one table, one seat or the
  host. The same seat connecting again replaces its older connection (a reload, a second
  tab); every connection gets a number, `conn`, so peers can tell a rejoin from the page
  they knew.
- Each page is told who is present (`welcome` with the list of peers, then `join`/`leave`).
- A `signal` goes only to a present peer of the SAME table; the sender is the token's seat
  and connection, never a field of the message. Every message is validated (msgspec, at
  most MAX_MESSAGE_BYTES); a bad one gets an `error` back and nothing is relayed.
- Night: a pair of pages may only signal while both are awake (`may_link`, the rule of
  plugin.rules.sight; the pages apply the same rule through their view's `video` field to
  what they send and show). By day everyone is; at the black team's meeting the black
  players and the host are; in every other night phase no pair is. So a modified page
  cannot set up a new connection to peek. A connection set up by day stays
  open at night: the honest sender stops its track (replaceTrack(null) in video.js); the
  server cannot cut a browser-to-browser connection (docs/video.md, "limits").
- Spectators (a watch link's or the stream overlay's token) join as receivers: each is
  "watch:<conn>", links only with the seats and the host, only by day (never at the black
  team's meeting, whose faces would tell who is black), and every description a spectator
  sends must be receive-only (plugin.bodies.sending_media), so no spectator ever has a
  track accepted. At most `max_spectators` per table (too_many_spectators beyond).
- Limits, as on `/ws` (limits.py): connects per seat (a spectator: per address), and each
  connection's messages paced to VIDEO_MESSAGES_PER_SECOND, so a flood is slowed where it
  comes from. A signal to a page whose outbox already holds SIGNAL_BACKLOG messages is
  refused to its sender (`peer_busy`): one page's flood never gets another page dropped.
- A re-issued link ends its page's connection (`token_reissued`, close 4410, through
  Hub.close_viewer); a watch link's re-issue ends every spectator's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import msgspec
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from plugin.bodies import sending_media
from plugin.host.views import STREAM, Viewer
from plugin.rules import sight
from plugin.rules.state import NIGHT_PHASES, Phase
from plugin.signing import TokenError, Watch
from plugin.tasks import cancel_and_wait

from . import wire
from .close_codes import CloseCode
from .context import Server
from .limits import CONNECT_BURST, CONNECTS_PER_SECOND, RateLimit, allow_connect

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 32 * 1024  # one video m-line's SDP is 3-6 KB in Chromium
MAX_QUEUED = 256  # a page that does not read its signalling this long is dropped
# Signals queued for one page at most: past it a sender is refused (peer_busy), so the
# relay's own messages (join, leave) still fit, and a page is dropped only for not reading.
SIGNAL_BACKLOG = MAX_QUEUED - 32
# Per connection. A page that joins a full table offers to every seat, the host and the
# spectators at once (an offer and a few ICE candidates each, ~120 messages); a flood is
# read at this pace (it once relayed 41,000 signals of 20 KB in 3 s).
VIDEO_MESSAGES_PER_SECOND, VIDEO_MESSAGE_BURST = 50.0, 200
# Spectators' video connections per table by default. Video is a mesh: every spectator
# costs every player's uplink one more stream (about 250 kbit/s, docs/video.md).
MAX_SPECTATORS = 6
SPECTATOR = "watch"

Who = sight.Who | str  # a seat, "host", or a spectator "watch:<conn>"


def is_spectator(who: object) -> bool:
    return isinstance(who, str) and who.startswith(f"{SPECTATOR}:")


def may_link(phase: Phase | str, a: Who, b: Who, black: Collection[int]) -> bool:
    """Whether pages `a` and `b` may exchange video (and signalling) in `phase` (a Phase or
    its name, as the views carry it): plugin.rules.sight.may_link; a spectator with a seat
    or the host by day only, never with another spectator."""
    if is_spectator(a) or is_spectator(b):
        return not (is_spectator(a) and is_spectator(b)) and Phase(phase) not in NIGHT_PHASES
    assert not isinstance(a, str) or a == "host"
    assert not isinstance(b, str) or b == "host"
    return sight.may_link(Phase(phase), a, b, black)  # type: ignore[arg-type]


# --- messages ------------------------------------------------------------------------------

Seat = Annotated[int, msgspec.Meta(ge=1, le=99)]
Peer = Seat | Annotated[str, msgspec.Meta(pattern=r"^(host|watch:[0-9]{1,9})$")]


class Description(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    type: Literal["offer", "answer"]
    sdp: Annotated[str, msgspec.Meta(min_length=1, max_length=24 * 1024)]


class Candidate(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    candidate: Annotated[str, msgspec.Meta(max_length=1024)]
    sdpMid: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    sdpMLineIndex: Annotated[int, msgspec.Meta(ge=0, le=64)] | None = None
    usernameFragment: Annotated[str, msgspec.Meta(max_length=256)] | None = None


class Signal(msgspec.Struct, tag="signal", tag_field="type", forbid_unknown_fields=True,
             frozen=True, kw_only=True):  # fmt: skip
    """An offer, an answer or one ICE candidate for the peer `to`. `gen` numbers the
    sender's peer connections to that peer, so a rebuilt connection is told apart."""

    to: Peer
    gen: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
    description: Description | None = None
    candidate: Candidate | None = None


_decoder = msgspec.json.Decoder(Signal)
_encoder = msgspec.json.Encoder()


class SignalError(Exception):
    """A refused message. code: too_large | bad_json | bad_message | not_present | asleep."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def decode(raw: str | bytes) -> Signal:
    """Validate one page's message; SignalError says why it is refused."""
    try:
        message = wire.decode(_decoder, raw, MAX_MESSAGE_BYTES)
    except wire.Refused as refusal:
        raise SignalError(refusal.code, refusal.message) from None
    if (message.description is None) == (message.candidate is None):
        raise SignalError("bad_message", "a signal carries a description or a candidate")
    return message


def encode(kind: str, **fields: Any) -> bytes:
    return _encoder.encode({"type": kind, **fields})


# --- the relay -----------------------------------------------------------------------------


@dataclass(eq=False, slots=True, kw_only=True)
class Link:
    """One page's signalling connection, with its outbox drained by its own writer."""

    table: str
    seat: Who
    conn: int
    outbox: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)
    dropped: bool = False
    closing: tuple[CloseCode, str] = (
        CloseCode.REPLACED,
        "closed",
    )  # the writer's close code, reason

    def push(self, data: bytes) -> None:
        if self.dropped:
            return
        if self.outbox.qsize() >= MAX_QUEUED:
            self.close()
            return
        self.outbox.put_nowait(data)

    def close(self) -> None:
        """Stop the writer (it closes the socket)."""
        if not self.dropped:
            self.dropped = True
            self.outbox.put_nowait(None)

    def end(self, reply: bytes, code: CloseCode, reason: str) -> None:
        """The server ends this page's session: `reply`, then close with `code`."""
        if not self.dropped:
            self.outbox.put_nowait(reply)  # past MAX_QUEUED too: the last word is said
            self.closing = (code, reason)
            self.close()


# (phase, black seats) of a table now, or None when there is no such table.
PhaseOf = Callable[[str], "tuple[Phase | str, frozenset[int]] | None"]


class Relay:
    """Who is connected to each table's mesh, and the relaying between them."""

    def __init__(self, phase_of: PhaseOf, *, max_spectators: int = MAX_SPECTATORS) -> None:
        self._phase_of = phase_of
        self.max_spectators = max_spectators
        self._links: dict[str, dict[Who, Link]] = {}
        self._numbers = itertools.count(1)
        self.connects = RateLimit(CONNECTS_PER_SECOND, CONNECT_BURST)  # as /ws's
        self.messages = RateLimit(VIDEO_MESSAGES_PER_SECOND, VIDEO_MESSAGE_BURST)

    def present(self, table: str) -> dict[Who, Link]:
        return dict(self._links.get(table, {}))

    def spectators(self, table: str) -> int:
        return sum(1 for who in self._links.get(table, {}) if is_spectator(who))

    def join(self, table: str, seat: Who) -> Link:
        """Admit a page: it replaces the same seat's older page; everyone learns of it.
        `seat` "watch": a spectator, who becomes "watch:<conn>" (SignalError
        too_many_spectators past max_spectators)."""
        conn = next(self._numbers)
        if seat == SPECTATOR:
            if self.spectators(table) >= self.max_spectators:
                message = f"this table already has {self.max_spectators} spectators' video"
                raise SignalError("too_many_spectators", message)
            seat = f"{SPECTATOR}:{conn}"
        link = Link(table=table, seat=seat, conn=conn)
        links = self._links.setdefault(table, {})
        older = links.get(seat)
        if older is not None:
            self.leave(older)
            older.push(encode("error", error="replaced", message="this seat connected again"))
            older.close()
        peers = [{"seat": s, "conn": other.conn} for s, other in links.items()]
        link.push(encode("welcome", you=seat, conn=link.conn, peers=peers))
        for other in links.values():
            other.push(encode("join", seat=seat, conn=link.conn))
        links[seat] = link
        return link

    def leave(self, link: Link) -> None:
        links = self._links.get(link.table, {})
        if links.get(link.seat) is not link:
            return  # already replaced
        del links[link.seat]
        if not links:
            self._links.pop(link.table, None)
        for other in links.values():
            other.push(encode("leave", seat=link.seat, conn=link.conn))

    def close_viewer(self, table: str, viewer: Viewer, code: str, message: str) -> None:
        """End the page of one seat or the host, or (viewer None, or the stream overlay's)
        every spectator's: its link was re-issued (Hub.on_close_viewer)."""
        spectators = viewer is None or viewer == STREAM
        for who, link in list(self._links.get(table, {}).items()):
            if who == viewer or (spectators and is_spectator(who)):
                self.leave(link)
                link.end(encode("error", error=code, message=message), CloseCode.ENDED, code)

    def relay(self, link: Link, raw: str | bytes) -> None:
        """Deliver one message from `link`'s page, or tell it why not (SignalError)."""
        message = decode(raw)
        target = self._links.get(link.table, {}).get(message.to)
        if target is None or target is link:
            raise SignalError("not_present", f"{message.to!r} is not connected to this table")
        now = self._phase_of(link.table)
        if now is None:
            raise SignalError("not_present", "the table is gone")
        phase, black = now
        if not may_link(phase, link.seat, message.to, black):
            raise SignalError("asleep", f"no video between {link.seat!r} and {message.to!r} now")
        if (
            is_spectator(link.seat)
            and message.description is not None
            and sending_media(message.description.sdp)
        ):
            raise SignalError("receive_only", "a spectator only receives video")
        if target.outbox.qsize() >= SIGNAL_BACKLOG:  # the sender waits, never the target
            raise SignalError("peer_busy", f"{message.to!r} has not read its signals yet")
        fields: dict[str, Any] = {"from": link.seat, "conn": link.conn, "gen": message.gen}
        if message.description is not None:
            fields["description"] = msgspec.structs.asdict(message.description)
        if message.candidate is not None:
            fields["candidate"] = msgspec.structs.asdict(message.candidate)
        target.push(encode("signal", **fields))


def table_phase(server: Server) -> PhaseOf:
    """The phase and black seats of a table of `server`'s registry."""

    def phase_of(table_id: str) -> tuple[Phase | str, frozenset[int]] | None:
        table = server.registry.tables.get(table_id) if server.registry else None
        if table is None:
            return None
        return table.state.phase, sight.black_seats(table.state)

    return phase_of


def video_routes(server: Server, max_spectators: int = MAX_SPECTATORS) -> list[BaseRoute]:
    """The `/video` signalling WebSocket for `create_app`'s `config.routes`."""
    relay = Relay(table_phase(server), max_spectators=max_spectators)
    server.hub.on_close_viewer(relay.close_viewer)  # a re-issued link's page is ended

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            token, table_hint = await wire.opening_token(websocket, server.config.hello_seconds)
            grant = server.claim(token, table_hint)
        except (wire.Refused, TokenError) as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        table = await server.table(grant.table)
        if table is None:
            code, message = server.missing(grant.table)
            await _refuse(websocket, code, message, CloseCode.NO_TABLE)
            return
        try:  # a seat of this table (not 0, not 42), of its current link; or a spectator
            admitted = server.admit(token, table)
        except TokenError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.UNAUTHORIZED)
            return
        who: Who = SPECTATOR if isinstance(admitted, Watch) else admitted.seat
        # Spectators share one link: each is limited by his own address, as on /ws.
        client = websocket.client.host if websocket.client else ""
        rate_key = (
            (admitted.table, SPECTATOR, client) if who == SPECTATOR else (admitted.table, who)
        )
        if not await allow_connect(relay.connects, rate_key):
            message = "this seat connects too often; wait a few seconds"
            await _refuse(websocket, "too_many_connects", message, CloseCode.TOO_MANY)
            return
        try:
            link = relay.join(admitted.table, who)
        except SignalError as refusal:
            await _refuse(websocket, refusal.code, refusal.message, CloseCode.TOO_MANY)
            return
        await _serve(relay, websocket, link)

    route = WebSocketRoute("/video", endpoint)
    route.relay = relay  # type: ignore[attr-defined]  # for tests and benches
    return [route]


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: CloseCode) -> None:
    await wire.refuse(websocket, encode("error", error=code, message=message), code, close_code)


async def _serve(relay: Relay, websocket: WebSocket, link: Link) -> None:
    table, seat = link.table, link.seat

    async def write() -> None:
        # A page that went away while it was written to is no failure of the server's.
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            while (data := await link.outbox.get()) is not None:
                await websocket.send_text(data.decode())
            # Dropped (replaced, or too slow): send what was queued before the end, then close.
            while not link.outbox.empty():
                data = link.outbox.get_nowait()
                if data is not None:
                    await websocket.send_text(data.decode())
            await websocket.close(*link.closing)

    writer = asyncio.create_task(write(), name=f"video {table}/{seat}")
    try:
        while not link.dropped:
            raw = await wire.receive(websocket)
            if raw is None:
                break
            delay = relay.messages.wait(id(link))
            if delay > 0:  # a flood is read at the relay's pace
                await asyncio.sleep(delay)
                if link.dropped:  # ended (re-issued, replaced) while it waited
                    break
            try:
                relay.relay(link, raw)
            except SignalError as refusal:
                link.push(encode("error", error=refusal.code, message=refusal.message))
    except WebSocketDisconnect:
        pass
    finally:
        relay.leave(link)
        if link.dropped:  # ended by the relay: its writer says the last word and closes
            await asyncio.wait({writer})
        link.dropped = True
        await cancel_and_wait([writer], log=logger)
