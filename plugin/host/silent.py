"""No-op adapters: a server started without a room backend or a voice still runs its tables
(the widgets show everything; nobody is muted or spoken to). The real ones are plugged in
through the registry's factories (embedded room, LiveKit, espeak-ng voice)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from .ports import PcmFrame, PresenceCallback


class SilentRoom:
    async def start(self) -> None:
        pass

    async def set_speakers(self, seats: frozenset[int]) -> None:
        pass

    async def release_all(self) -> None:
        pass

    def on_presence(self, callback: PresenceCallback) -> None:
        pass

    async def stop(self) -> None:
        pass


class SilentVoice:
    async def announce(self, key: str, params: Mapping[str, Any], *, urgent: bool = False) -> None:
        pass

    async def skip_queued(self) -> None:
        pass

    async def pcm_frames(self) -> AsyncIterator[PcmFrame]:
        """No frames: a room playing a silent voice has nothing to send."""
        return
        yield  # pragma: no cover  (makes this an async generator)

    def on_cut(self, callback: Callable[[], None]) -> None:
        pass

    async def stop(self) -> None:
        pass
