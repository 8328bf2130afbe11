"""What one participant's data messages may cost the bot's process (issue 30).

RPC to the bot is rate-limited per seat (the socket's bucket), data messages were not: one
player sending 1,216 reliable 1 KB packets a second to the bot raised a neighbour table's
grant latency from 23 to 98 ms median (346 max). The bot has no use for a participant's
data packets (the overlay speaks RPC), but the SDK hands each one to Python all the same.

`DataGuard` is a token bucket per sender identity, consulted on the SDK's own thread by the
room's event filter (ffi.py) before the packet is queued for the event loop: a packet over
the bucket is dropped there, costing a dict lookup. A sender who keeps flooding (more than
`remove_after` packets dropped within `window` seconds) is reported once per window
through `on_flood` (on the event loop), and the table removes him from the room and tells
the live host on the data topic `autohost.notice` (and the log). A page sends a handful of
packets a minute; the bucket (20 a second, bursts of 60) is far above that.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from livekit import rtc

log = logging.getLogger(__name__)

NOTICE_TOPIC = "autohost.notice"
MAX_SENDERS = 4096  # buckets kept; the oldest goes first (a room never has that many)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float
    dropped: int = 0  # within the current window
    window_start: float = 0.0
    reported: bool = False
    total_dropped: int = 0


@dataclass(slots=True)
class DataGuard:
    """Token buckets per sender identity (see the module docstring); thread-safe."""

    rate: float = 20.0  # packets a second, sustained
    burst: float = 60.0
    remove_after: int = 200  # packets dropped within `window`: he keeps flooding
    window: float = 10.0
    on_flood: Callable[[str, int], None] | None = None  # (identity, dropped), on the loop
    clock: Callable[[], float] = time.monotonic
    admitted: int = 0
    dropped: int = 0
    floods: int = 0
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop `on_flood` runs on (the bot's)."""
        self._loop = loop

    def admit(self, identity: str) -> bool:
        """Whether a data packet from `identity` may reach the bot (called per packet)."""
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(identity)
            if bucket is None:
                if len(self._buckets) >= MAX_SENDERS:
                    self._buckets.pop(next(iter(self._buckets)))
                bucket = self._buckets[identity] = _Bucket(self.burst, now, window_start=now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
            bucket.at = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                self.admitted += 1
                return True
            self.dropped += 1
            bucket.total_dropped += 1
            if now - bucket.window_start > self.window:
                bucket.window_start, bucket.dropped, bucket.reported = now, 0, False
            bucket.dropped += 1
            flood = bucket.dropped > self.remove_after and not bucket.reported
            if flood:
                bucket.reported = True
                self.floods += 1
                dropped = bucket.total_dropped
        if flood:
            self._report(identity, dropped)
        return False

    def forget(self, identity: str) -> None:
        with self._lock:
            self._buckets.pop(identity, None)

    def _report(self, identity: str, dropped: int) -> None:
        callback, loop = self.on_flood, self._loop
        if callback is None:
            return
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(callback, identity, dropped)


async def tell_hosts(room: rtc.Room, hosts: list[str], notice: dict[str, object]) -> None:
    """Send `notice` to the live host's identities on NOTICE_TOPIC (and log it)."""
    log.warning("livekit: notice to the host of %s: %s", room.name, notice)
    if not hosts:
        return
    payload = json.dumps({"type": "notice", **notice}).encode()
    try:
        await room.local_participant.publish_data(
            payload, reliable=True, topic=NOTICE_TOPIC, destination_identities=hosts
        )
    except Exception as error:  # the room went meanwhile: the log has it
        log.info("livekit: the notice did not reach the host: %s", error)
