"""EmbeddedRoom: our own server is the table's audio room (the default RoomBackend).

Theory of operation. Every peer (a seat's page, or "host") holds one RTCPeerConnection to
this process: it sends its microphone, it receives the table's mix. A gated seat's
microphone is dropped before it is even decoded (Peer.gate_decoder: most of the CPU a
silent page would cost); a reader task per peer drains whatever is decoded, always
(aiortc's receive queue is unbounded, FIELD-NOTES), and keeps it only while the seat may
speak. One mixer task ticks every
20 ms; at each tick it decides who is heard from the speaker set as it is NOW (so a
set_speakers takes effect at the very next tick, within one frame), mixes those seats and
the bot's voice, encodes that mix once with libopus and hands the same av.Packet to every
listener's sender. A listener who is himself an allowed speaker (always the live host)
gets his own encoding of the mix without his own voice, so nobody hears himself echo.
The gate lives here, on the server: what a page does with its microphone does not matter.
While no peer is in the room the mixer rests (no ticks at all), so a table nobody is
connected to costs no CPU; the first peer to join wakes it.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

import numpy as np
from aiortc import RTCConfiguration, RTCIceServer, RTCPeerConnection, RTCSessionDescription

from plugin.bodies import sending_media
from plugin.host.ports import PresenceCallback
from plugin.tasks import cancel_and_wait

from .bot import BotAudio, BotVoice
from .frames import FRAME_SAMPLES, FRAME_SECONDS
from .ice import use_loopback_ice
from .opus import OpusStream
from .peer import Peer, Seat, SeatStats

log = logging.getLogger(__name__)

HOST: Seat = "host"
WATCH = "watch"  # a spectator's watch token: he listens, never speaks (issue 17)
# Spectators' audio connections per table by default: each costs the server one more
# sender of the shared packets (no encoding), the cap bounds what one link can open.
MAX_LISTENERS = 50


class RoomFull(Exception):
    """The table has as many spectators' connections as it allows; nothing changed."""


class Disconnected(Exception):
    """The seat's link was re-issued while its offer was being answered (`disconnect`):
    the connection its old token asked for is closed, not admitted."""


# If the event loop stalls this long, the mixer restarts its clock instead of bursting
# the missed ticks (a burst would only overflow the listeners' short packet queues).
MAX_LAG_SECONDS = 0.2


class EmbeddedRoom:
    """A table's audio room served by this process (aiortc). See the module docstring.

    `bot_audio`: the bot's voice, an async iterator of 20 ms int16 frames or an aiortc
    audio track (voice.announcer.Announcer.pcm_frames() / .track()). `ice_loopback_only`:
    gather only 127.0.0.1 (process-wide, see .ice): tests, CI, a machine with no network;
    a browser then needs --allow-loopback-in-peer-connection. Off, aiortc offers the
    machine's own addresses, which is what browsers on a LAN need. `ice_servers`: called
    for every new peer, the STUN/TURN servers its connection may use (TURN credentials
    are short-lived, hence a callable); none by default.
    """

    def __init__(
        self,
        *,
        seats: int = 12,
        bot_audio: BotAudio | None = None,
        ice_loopback_only: bool = False,
        ice_servers: Callable[[], Sequence[RTCIceServer]] | None = None,
        max_listeners: int = MAX_LISTENERS,
    ) -> None:
        if seats < 1:
            raise ValueError(f"a room needs at least one seat, not {seats}")
        if max_listeners < 0:
            raise ValueError(f"max_listeners is 0 or more, not {max_listeners}")
        self.max_listeners = max_listeners
        self._listener_numbers = itertools.count(1)
        # Spectators' offers being answered now: each holds its place while aiortc works,
        # so offers sent together cannot all pass the count before any is admitted.
        self._joining_listeners = 0
        # How often each seat ("watch": the spectators) was disconnected: an offer answered
        # across a disconnect was authorized by the replaced link, and is closed.
        self._disconnects: dict[Seat, int] = {}
        self.seats = seats
        self._bot = BotVoice(bot_audio) if bot_audio is not None else None
        self._ice_loopback_only = ice_loopback_only
        self._ice_servers = ice_servers
        self._speakers: frozenset[int] = frozenset()
        self._released = False
        self._peers: dict[Seat, Peer] = {}
        self._present: set[int] = set()
        self._presence: list[PresenceCallback] = []
        self._shared = OpusStream()
        self._tick_index = 0
        self._tick_failed = False
        self.last_tick: float | None = None  # time.monotonic() of the latest mixer tick
        self._mixer: asyncio.Task[None] | None = None
        self._listened = asyncio.Event()  # set while any peer is in the room
        self._tasks: set[asyncio.Task[Any]] = set()  # presence callbacks
        self._closing: set[asyncio.Task[Any]] = set()  # peers closing after a failure
        self._stopping = False
        self._bot_forwarded = 0
        self._bot_last: float | None = None

    # -- RoomBackend ---------------------------------------------------------------------

    async def start(self) -> None:
        if self._mixer is not None:
            raise RuntimeError("the room is already started")
        if self._ice_loopback_only:
            use_loopback_ice()
        self._stopping = False
        if self._bot is not None:
            self._bot.start()
        self._mixer = asyncio.create_task(self._run_mixer(), name="embedded-room-mixer")

    async def set_speakers(self, seats: frozenset[int]) -> None:
        """Exactly these seats are heard from the next 20 ms tick on (the host always is)."""
        speakers = frozenset(seats)
        for seat in speakers:
            if seat == HOST:
                raise ValueError("the live host is always heard; he is not a seat")
            self._check_seat(seat)
        self._speakers = speakers
        self._released = False

    async def release_all(self) -> None:
        """Every microphone is heard again (the table is over or shutting down)."""
        self._released = True

    def on_presence(self, callback: PresenceCallback) -> None:
        self._presence.append(callback)

    async def stop(self) -> None:
        """Stop mixing, close every peer, and await every task the room started."""
        self._stopping = True
        await cancel_and_wait([self._mixer], log=log)
        self._mixer = None
        if self._bot is not None:
            await self._bot.stop()
        peers = list(self._peers.values())
        self._peers.clear()
        self._present.clear()
        await asyncio.gather(*(peer.close() for peer in peers))
        while self._closing:
            await asyncio.gather(*list(self._closing), return_exceptions=True)
        while self._tasks:
            tasks = list(self._tasks)
            await cancel_and_wait(tasks, log=log)
            self._tasks.difference_update(tasks)

    # -- peers ---------------------------------------------------------------------------

    async def accept(self, seat: Seat, offer_sdp: str, offer_type: str) -> RTCSessionDescription:
        """Answer a peer's WebRTC offer for `seat` (1..seats, or "host").

        A second connection for the same seat (a reloaded page) replaces the first.
        `seat` "watch" admits a spectator as a listener: his offer must be receive-only
        (ValueError otherwise), he gets the listeners' mix and is never heard; each
        spectator is a peer of his own ("watch:N"), at most `max_listeners` (RoomFull).
        Raises ValueError for a bad seat or offer; nothing changes then.
        """
        if seat == WATCH:
            return await self._accept_listener(offer_sdp, offer_type)
        self._check_seat(seat)
        if offer_type != "offer":
            raise ValueError(f"expected an SDP offer, got type {offer_type!r}")
        if not isinstance(offer_sdp, str) or not offer_sdp.startswith("v=0"):
            raise ValueError("the offer is not SDP (it must start with 'v=0')")
        if self._mixer is None or self._stopping:
            raise RuntimeError("the room is not running")
        link = WATCH if _is_listener(seat) else seat
        disconnects = self._disconnects.get(link, 0)

        # Only the configured STUN/TURN servers, never none: without a list aiortc falls
        # back to a public STUN server (FIELD-NOTES).
        servers = list(self._ice_servers()) if self._ice_servers else []
        pc = RTCPeerConnection(RTCConfiguration(iceServers=servers))
        peer = Peer(seat, pc, lambda: self._allowed(seat))
        pc.on("track", peer.read)
        pc.on("connectionstatechange", lambda: self._on_state(peer))  # sync handler
        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=offer_sdp, type="offer"))
            self._attach_outbound(peer)
            await pc.setLocalDescription(await pc.createAnswer())
        except Exception as error:
            await peer.close()
            if isinstance(error, ValueError):
                raise
            raise ValueError(f"the offer was refused: {error}") from error
        if self._disconnects.get(link, 0) != disconnects:
            await peer.close()
            raise Disconnected(f"the link of {seat!r} was replaced while its offer was answered")

        old = self._peers.get(seat)
        self._peers[seat] = peer
        self._listened.set()
        if old is not None:
            await old.close()
        return pc.localDescription

    async def _accept_listener(self, offer_sdp: str, offer_type: str) -> RTCSessionDescription:
        if offer_type != "offer" or not isinstance(offer_sdp, str):
            raise ValueError(f"expected an SDP offer, got type {offer_type!r}")
        if sending_media(offer_sdp):
            raise ValueError("a spectator only listens: his offer must be receive-only")
        if self.listeners() + self._joining_listeners >= self.max_listeners:
            raise RoomFull(f"this table already has {self.max_listeners} spectators listening")
        self._joining_listeners += 1  # before the first await: the place is taken now
        try:
            name = f"{WATCH}:{next(self._listener_numbers)}"
            return await self.accept(name, offer_sdp, "offer")
        finally:
            self._joining_listeners -= 1  # admitted (counted by listeners()) or refused

    def listeners(self) -> int:
        """Spectators' audio connections open now."""
        return sum(1 for seat in self._peers if _is_listener(seat))

    def disconnect(self, seat: Seat) -> None:
        """Close `seat`'s connection ("watch": every spectator's) at once: its link was
        re-issued, and the old token's peer must not go on hearing (or speaking to) the
        table. An offer being answered for it meanwhile is refused (Disconnected)."""
        self._disconnects[seat] = self._disconnects.get(seat, 0) + 1
        gone = [s for s in self._peers if (_is_listener(s) if seat == WATCH else s == seat)]
        for name in gone:
            peer = self._peers.pop(name)
            peer.connected = False
            self._spawn(peer.close(), cancel_on_stop=False)
            if isinstance(name, int) and name in self._present:
                self._present.discard(name)
                self._notify(name, False)

    def _attach_outbound(self, peer: Peer) -> None:
        """Send the mix on the offer's first audio transceiver; leave the rest inactive
        (a camera or second microphone would cost decoding and is never forwarded)."""
        audio = [t for t in peer.pc.getTransceivers() if t.kind == "audio"]
        if not audio:
            raise ValueError("the offer has no audio")
        audio[0].sender.replaceTrack(peer.outbound)
        # A spectator's transceiver only sends: no upstream track is ever accepted from him.
        audio[0].direction = "sendonly" if _is_listener(peer.seat) else "sendrecv"
        peer.gate_decoder(audio[0].receiver)
        for transceiver in peer.pc.getTransceivers():
            if transceiver is not audio[0]:
                transceiver.direction = "inactive"

    def _on_state(self, peer: Peer) -> None:
        if self._stopping or self._peers.get(peer.seat) is not peer:
            return  # replaced by a newer connection for the seat, or shutting down
        state = peer.pc.connectionState
        if state == "connected" and not peer.connected:
            peer.connected = True
            if isinstance(peer.seat, int) and peer.seat not in self._present:
                self._present.add(peer.seat)
                self._notify(peer.seat, True)
        elif state in ("failed", "closed"):
            peer.connected = False
            del self._peers[peer.seat]
            self._spawn(peer.close(), cancel_on_stop=False)
            if isinstance(peer.seat, int) and peer.seat in self._present:
                self._present.discard(peer.seat)
                self._notify(peer.seat, False)

    def _notify(self, seat: int, joined: bool) -> None:
        for callback in self._presence:
            self._spawn(callback(seat, joined))

    def _spawn(self, coroutine: Awaitable[Any], *, cancel_on_stop: bool = True) -> None:
        # A closing peer is awaited, never cancelled, at stop(): cancelling a task that
        # awaits aiortc's RTCPeerConnection.close() cancels aiortc's own "closed" future,
        # and aiortc's concurrent auto-close then fails with InvalidStateError.
        task = asyncio.ensure_future(coroutine)
        (self._tasks if cancel_on_stop else self._closing).add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self._closing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("room task failed", exc_info=task.exception())

    # -- the gate and the mixer ----------------------------------------------------------

    def _allowed(self, seat: Seat) -> bool:
        if _is_listener(seat):
            return False  # a spectator is never heard, not even after the game
        return seat == HOST or self._released or seat in self._speakers

    def _check_seat(self, seat: object) -> None:
        if seat == HOST or _is_listener(seat):
            return
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ValueError(f"a seat is a number or 'host', not {seat!r}")
        if not 1 <= seat <= self.seats:
            raise ValueError(f"seat {seat} is not at this table (1..{self.seats})")

    async def _run_mixer(self) -> None:
        deadline = time.monotonic()
        while True:
            if not self._peers:
                # Nobody in the room: nothing to mix or send. The mixer rests until a peer
                # joins, so a table nobody is connected to costs no CPU.
                self._listened.clear()
                await self._listened.wait()
                if self._bot is not None:
                    self._bot.drain()
                deadline = time.monotonic()
            deadline += FRAME_SECONDS
            delay = deadline - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -MAX_LAG_SECONDS:
                deadline = time.monotonic()
            try:
                self.tick()
            except Exception:
                # A fault in one tick must not silence the table for good; say it once.
                if not self._tick_failed:
                    log.exception("embedded room: a mixer tick failed")
                self._tick_failed = True

    def tick(self) -> None:
        """One 20 ms step: gate, mix, encode once (plus once per speaking listener), send."""
        pts = self._tick_index * FRAME_SAMPLES
        self._tick_index += 1
        now = self.last_tick = time.monotonic()
        peers = list(self._peers.values())

        mix = np.zeros(FRAME_SAMPLES, dtype=np.int32)
        bot = self._bot.next_frame() if self._bot is not None else None
        if bot is not None:
            mix += bot
            self._bot_forwarded += 1
            self._bot_last = now
        voices: dict[Seat, np.ndarray] = {}
        for peer in peers:
            if self._allowed(peer.seat):
                samples = peer.take()
                if samples is not None:
                    voices[peer.seat] = samples
                    mix += samples
                    peer.frames_forwarded += 1
                    peer.last_forwarded = now
            else:
                peer.discard()  # the gate is closed at this tick: nothing buffered survives
                peer.own_mix = None

        shared: list[Any] | None = None
        for peer in peers:
            if self._allowed(peer.seat):
                if peer.own_mix is None:
                    peer.own_mix = OpusStream()
                own = voices.get(peer.seat)
                packets = peer.own_mix.encode(_clip(mix if own is None else mix - own), pts)
            else:
                if shared is None:
                    shared = self._shared.encode(_clip(mix), pts)
                packets = shared
            for packet in packets:
                peer.outbound.push(packet)

    # -- observation ---------------------------------------------------------------------

    def stats(self) -> dict[Seat, SeatStats]:
        """Forwarding counters per connected seat (and "bot" for the bot's voice)."""
        result = {seat: peer.stats() for seat, peer in self._peers.items()}
        result["bot"] = SeatStats(
            seat="bot",
            connected=self._bot is not None,
            frames_received=self._bot.frames_read if self._bot is not None else 0,
            frames_decoded=self._bot.frames_read if self._bot is not None else 0,
            frames_forwarded=self._bot_forwarded,
            last_forwarded=self._bot_last,
        )
        return result

    @property
    def ticks(self) -> int:
        """Mixer ticks so far (one per 20 ms while running)."""
        return self._tick_index

    @property
    def speakers(self) -> frozenset[int]:
        return self._speakers

    @property
    def present(self) -> frozenset[int]:
        """Seats whose peer is connected now."""
        return frozenset(self._present)

    def peers(self) -> Iterable[Seat]:
        return tuple(self._peers)


def _is_listener(seat: object) -> bool:
    return isinstance(seat, str) and seat.startswith(f"{WATCH}:")


def _clip(mix: np.ndarray) -> np.ndarray:
    clipped: np.ndarray = np.clip(mix, -32768, 32767).astype(np.int16)
    return clipped
