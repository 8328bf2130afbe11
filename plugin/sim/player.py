"""SimPlayer: one simulated player, joined to a table exactly as a browser page joins it.

It speaks the table's WebSocket protocol (/ws, the seat's signed token in its hello),
reconnecting with backoff when the socket drops, and acts on each view by its Strategy.
With audio on it also joins the embedded room over WebRTC (aiortc, POST /rtc/{table}/offer,
the same route media.js uses): its microphone is a SpeechTrack that says the bot's
synthesised line during its own speech and is silent otherwise; it sends only while its
seat may speak (the server gates anyway), and it always drains what it receives; an
offer refused or a connection lost is made again, with backoff (_keep_audio).
With video on it joins the video mesh too (plugin.sim.video): its camera is its seat number
drifting over its colour, sent to each page only while the view lets them link.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import numpy as np
import websockets

from plugin.rooms.embedded.client import RoomClient, http_answerer
from plugin.tasks import cancel_and_wait
from plugin.web.close_codes import CloseCode

from .speech import SpeechTrack, render_line
from .strategy import SPEECH_PHASES, Move, Strategy
from .video import MeshVideo

log = logging.getLogger(__name__)

FIRST_BACKOFF, MAX_BACKOFF = 0.25, 5.0
AUDIO_BACKOFF = 30.0  # the most a bot without audio waits before it offers again
FINAL_CLOSE_CODES = {CloseCode.UNAUTHORIZED, CloseCode.NO_TABLE}  # bad token, no table


class SimPlayer:
    """A bot in `seat` of table `table_id` on the server at `base_url` (http://host:port)."""

    def __init__(
        self,
        base_url: str,
        table_id: str,
        seat: int,
        token: str,
        *,
        seed: int = 0,
        lang: str = "en",
        audio: bool = True,
        voice: bool = True,
        speech_seconds: float = 3.0,
        think_seconds: float = 1.0,
        video: bool = False,
        on_event: Callable[[str], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.table_id = table_id
        self.seat = seat
        self._token = token
        self.lang = lang
        self.strategy = Strategy(
            seat, seed, speech_seconds=speech_seconds, think_seconds=think_seconds
        )
        self.audio = audio
        self.voice = voice
        self.on_event = on_event
        self.view: dict[str, Any] | None = None
        self.states = 0
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.errors: list[dict[str, Any]] = []
        self.microphone: SpeechTrack | None = None
        self.room: RoomClient | None = None
        self.video = MeshVideo(base_url, token, seat, self.sees) if video else None
        self._line: np.ndarray | None = None
        self._socket: Any = None
        self._counter = 0
        self._task: asyncio.Task[None] | None = None
        self._audio_task: asyncio.Task[None] | None = None
        self._moves: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Event()
        self._stopping = False

    # -- lifetime -------------------------------------------------------------------------

    async def start(self) -> None:
        """Join the audio room (when audio is on) and start following the table."""
        if self.audio:  # the first offer before the game; then kept up in the background
            joined = await self._join_audio()
            self._audio_task = asyncio.create_task(
                self._keep_audio(joined), name=f"sim seat {self.seat} audio"
            )
        if self.video is not None:
            self.video.start()
        self._task = asyncio.create_task(self._run(), name=f"sim seat {self.seat}")

    async def stop(self) -> None:
        """Leave: cancel pending moves, close the socket and the WebRTC connection."""
        self._stopping = True
        await cancel_and_wait([self._task, self._audio_task, *self._moves], log=log)
        if self._socket is not None:
            with contextlib.suppress(Exception):
                await self._socket.close()
        if self.room is not None:
            await self.room.close()
            self.room = None
        if self.video is not None:
            await self.video.stop()

    def sees(self, who: int | str) -> bool:
        """Whether this seat may send its camera to page `who` now (its view's `video`)."""
        video = (self.view or {}).get("video") or {}
        if isinstance(who, str) and who.startswith("watch:"):
            return bool(video.get("spectators"))
        return who in (video.get("peers") or [])

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float) -> None:
        """Wait until the latest view satisfies `predicate` (tests, the demo)."""
        async with asyncio.timeout(timeout):
            while self.view is None or not predicate(self.view):
                self._changed.clear()
                await self._changed.wait()

    async def drop_connection(self) -> None:
        """Close the socket as a network fault would (it reconnects by itself)."""
        if self._socket is not None:
            await self._socket.close(code=4000, reason="dropped")

    # -- audio ----------------------------------------------------------------------------

    async def _keep_audio(self, joined: bool) -> None:
        """Keep this bot in the audio room: an offer that failed (the server restarting,
        the table not open yet) is made again, with backoff, and so is a connection that
        is lost later, as media.js does; meanwhile the game goes on without its voice."""
        backoff = FIRST_BACKOFF
        while not self._stopping:
            if joined and self.room is not None:
                backoff = FIRST_BACKOFF
                await self.room.lost()
                log.info("seat %s: audio lost; joining again", self.seat)
                await self.room.close()
                self.room = None
            else:
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, AUDIO_BACKOFF)
            joined = await self._join_audio(again=True)

    async def _join_audio(self, *, again: bool = False) -> bool:
        """Offer to the embedded room; False (said once, not at every retry) if refused."""
        microphone = SpeechTrack()
        room = RoomClient(microphone, keep_seconds=0)
        url = f"{self.base_url}/rtc/{quote(self.table_id)}/offer"
        try:
            await room.connect(http_answerer(url, self._token))
        except asyncio.CancelledError:
            await room.close()
            raise
        except Exception as error:  # the game goes on without this bot's audio
            log.log(logging.DEBUG if again else logging.WARNING,
                    "seat %s: no audio (%s)", self.seat, error)  # fmt: skip
            await room.close()
            return False
        self.microphone, self.room = microphone, room
        room.set_sending(self.seat in (self.view or {}).get("speakers", []))
        if self.voice and self._line is None:
            try:
                self._line = await render_line(self.lang, self.seat)
            except Exception as error:
                log.warning("seat %s: no synthesised line (%s)", self.seat, error)
        return True

    # -- the protocol ---------------------------------------------------------------------

    async def _run(self) -> None:
        ws_base = "ws" + self.base_url.removeprefix("http")
        url = f"{ws_base}/ws"  # the token goes in the hello, as a page sends it
        backoff = FIRST_BACKOFF
        while not self._stopping:
            try:
                async with websockets.connect(url, max_size=2**20) as socket:
                    self._socket = socket
                    await socket.send(json.dumps({"type": "hello", "token": self._token}))
                    backoff = FIRST_BACKOFF
                    async for raw in socket:
                        self._receive(json.loads(raw))
                    if socket.close_code in FINAL_CLOSE_CODES:
                        log.error("seat %s: refused (%s)", self.seat, socket.close_reason)
                        return
            except asyncio.CancelledError:
                raise
            except (OSError, websockets.WebSocketException) as error:
                log.debug("seat %s: socket lost (%s)", self.seat, error)
            finally:
                self._socket = None
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "error":
            self.errors.append(message)
            return
        if kind != "state":
            return
        self.view = message
        self.states += 1
        self._changed.set()
        if self.room is not None:
            self.room.set_sending(self.seat in message.get("speakers", []))
        for move in self.strategy.moves(message):
            task = asyncio.create_task(self._do(move))
            self._moves.add(task)
            task.add_done_callback(self._moves.discard)

    async def _do(self, move: Move) -> None:
        if move.delay > 0:
            await asyncio.sleep(move.delay)
        view = self.view or {}
        if move.type == "say":
            if self.microphone is not None and self._line is not None:
                self.microphone.say(self._line)
            self._note(f"{self.seat}: says its line")
            return
        if move.type == "pass" and not (
            view.get("speaker") == self.seat and view.get("phase") in SPEECH_PHASES
        ):
            return  # the speech ended meanwhile (timer, host)
        await self.send(move.type, move.fields)

    async def send(self, kind: str, fields: dict[str, Any] | None = None) -> None:
        """Send one protocol message (dropped silently while disconnected)."""
        socket = self._socket
        if socket is None:
            return
        self._counter += 1
        message = {"v": 1, "id": f"sim{self.seat}-{self._counter}", "type": kind, **(fields or {})}
        self.sent.append((kind, dict(fields or {})))
        self._note(f"{self.seat}: {kind} {fields or ''}".rstrip())
        with contextlib.suppress(websockets.WebSocketException):
            await socket.send(json.dumps(message))

    def _note(self, text: str) -> None:
        if self.on_event is not None:
            self.on_event(text)
