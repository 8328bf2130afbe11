"""A simulated player in the video mesh (plugin/web/video.py, docs/video.md): it joins the
`/video` signalling socket with its seat's token, as a page does, and answers every page
that offers to link with it, sending its SeatPicture (plugin.sim.picture).

It never offers (the pages always do: each one makes a peer connection, and so an offer,
for every present peer it may see), so there is no glare to resolve, and it sends only: its
transceiver is sendonly, so no page's camera is ever decoded here (CPU). Each peer gets the
picture only while the bot's latest view lets the two link (`sees`): by day everyone, at
the black team's meeting the black team and the host, nobody else at night; spectators
("watch:<n>") by day.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

import websockets
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.sdp import candidate_from_sdp

from plugin.tasks import cancel_and_wait

from .picture import PeerPicture, SeatPicture

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0


class MeshVideo:
    """Seat `seat`'s camera in the mesh of the server at `base_url`; `sees(who)` says
    whether the bot may send to page `who` now (its view's `video`)."""

    def __init__(
        self, base_url: str, token: str, seat: int, sees: Callable[[int | str], bool]
    ) -> None:
        self._url = "ws" + base_url.rstrip("/").removeprefix("http") + "/video"
        self._token = token
        self.seat = seat
        self.picture = SeatPicture(seat)
        self._sees = sees
        self.peers: dict[int | str, tuple[Any, int, RTCPeerConnection]] = {}  # conn, gen, pc
        self._present: dict[int | str, int] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"sim video {self.seat}")

    async def stop(self) -> None:
        self._stopping = True
        await cancel_and_wait([self._task], log=log)
        await self._close_all()

    async def _run(self) -> None:
        while not self._stopping:
            try:
                async with websockets.connect(self._url, max_size=2**20) as socket:
                    await socket.send(json.dumps({"type": "hello", "token": self._token}))
                    async for raw in socket:
                        await self._receive(socket, json.loads(raw))
            except asyncio.CancelledError:
                raise
            except (OSError, websockets.WebSocketException) as error:
                log.debug("seat %s: video signalling lost (%s)", self.seat, error)
            await self._close_all()
            await asyncio.sleep(RETRY_SECONDS)

    async def _receive(self, socket: Any, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "welcome":
            self._present = {p["seat"]: p["conn"] for p in message.get("peers", [])}
        elif kind in ("join", "leave"):
            who = message["seat"]
            await self._drop(who)  # a page that came back, or left: its connection is over
            if kind == "join":
                self._present[who] = message["conn"]
            else:
                self._present.pop(who, None)
        elif kind == "signal":
            await self._signal(socket, message)
        elif kind == "error":
            log.debug("seat %s: video relay refused: %s", self.seat, message)

    async def _signal(self, socket: Any, message: dict[str, Any]) -> None:
        who, gen, conn = message["from"], message["gen"], message.get("conn")
        if self._present.get(who) != conn:
            return  # from a page that has left or been replaced since
        description, candidate = message.get("description"), message.get("candidate")
        known = self.peers.get(who)
        if description is not None and description.get("type") == "offer":
            if known is not None:
                await self._drop(who)  # the page rebuilt its connection, or renegotiates
            pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
            self.peers[who] = (conn, gen, pc)
            await pc.setRemoteDescription(RTCSessionDescription(**description))
            for transceiver in pc.getTransceivers():
                if transceiver.kind == "video" and transceiver.sender.track is None:
                    track = PeerPicture(self.picture, lambda who=who: self._sees(who))
                    transceiver.sender.replaceTrack(track)
                    transceiver.direction = "sendonly"
                else:
                    transceiver.direction = "inactive"
            await pc.setLocalDescription(await pc.createAnswer())
            answer = {"type": "answer", "sdp": pc.localDescription.sdp}
            await socket.send(
                json.dumps({"type": "signal", "to": who, "gen": gen, "description": answer})
            )
        elif candidate is not None and known is not None and known[1] == gen:
            text = str(candidate.get("candidate") or "")
            if not text:
                return  # the end of the page's candidates
            parsed = candidate_from_sdp(text.removeprefix("candidate:"))
            parsed.sdpMid = candidate.get("sdpMid")
            parsed.sdpMLineIndex = candidate.get("sdpMLineIndex")
            with contextlib.suppress(Exception):  # a candidate we cannot use is skipped
                await known[2].addIceCandidate(parsed)

    async def _drop(self, who: int | str) -> None:
        known = self.peers.pop(who, None)
        if known is not None:
            await known[2].close()

    async def _close_all(self) -> None:
        for who in list(self.peers):
            await self._drop(who)
