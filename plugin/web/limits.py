"""What one client may ask of the server: rates per token, connections per seat, and the
origins a browser page may call from.

A token bucket holds `burst` tokens and gains `rate` per second; each action takes one.
A connect that finds the bucket empty is refused, REFUSED_CONNECT_SECONDS later
(allow_connect): a client that connects in a loop waits for each refusal, so four loops
cost the server a few connects a second instead of hundreds (each one a handshake, a
token check and a close on the loop every table shares), and an honest page that
reconnects too fast would wait before trying again anyway. A message waits for its token (the
server reads that seat's next message later, so a flood is slowed to the rate and costs
the table nothing, and an honest client never notices). Buckets are kept per key (a
table's seat) in a bounded map, so a client inventing keys cannot grow it.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

MESSAGES_PER_SECOND, MESSAGE_BURST = 20.0, 40  # a widget sends a few a second at most
CONNECTS_PER_SECOND, CONNECT_BURST = 0.5, 10  # a reload or two, a flaky network
CONNECTIONS_PER_SEAT = 4  # a phone, a laptop and a reload overlapping
REFUSED_CONNECT_SECONDS = 1.0  # a connect over its rate hears so this much later
MAX_KEYS = 10_000


@dataclass(slots=True)
class Bucket:
    rate: float
    burst: float
    tokens: float
    stamp: float

    def take(self, now: float) -> bool:
        self._refill(now)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def reserve(self, now: float) -> float:
        """Take a token, borrowing ahead if need be: the seconds to wait before using it."""
        self._refill(now)
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now


async def allow_connect(limit: RateLimit, key: Hashable) -> bool:
    """Take a connect's token for `key`; without one, return False only after
    REFUSED_CONNECT_SECONDS (the caller then refuses). The socket waiting meanwhile is one
    of its address's capped connections."""
    if limit.allow(key):
        return True
    await asyncio.sleep(REFUSED_CONNECT_SECONDS)
    return False


@dataclass(slots=True)
class RateLimit:
    """Token buckets by key: `allow(key)` is False once the key's bucket is empty."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    _buckets: OrderedDict[Hashable, Bucket] = field(default_factory=OrderedDict)

    def allow(self, key: Hashable) -> bool:
        """Take a token for `key` if it has one (a connect): False means refuse."""
        now = self.clock()
        return self._bucket(key, now).take(now)

    def wait(self, key: Hashable) -> float:
        """Take a token for `key` (a message): the seconds to wait before handling it."""
        now = self.clock()
        return self._bucket(key, now).reserve(now)

    def _bucket(self, key: Hashable, now: float) -> Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = Bucket(self.rate, self.burst, self.burst, now)
            self._buckets[key] = bucket
            if len(self._buckets) > MAX_KEYS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket


def origin_of(url: str) -> str:
    """ "https://club.example:8443" from any URL of that site (lowercase, no path)."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def origin_allowed(
    origin: str | None, *, allowed: Iterable[str], host: str | None, scheme: str
) -> bool:
    """A request may change state from `origin` when it sends none (not a browser: the
    simulated players, curl, LiveKit's webhooks), when it is one of `allowed`, or when it is
    the server's own origin as the request reached it (the page was served from here)."""
    if origin is None:
        return True
    origin = origin.lower()
    if origin in {o.lower() for o in allowed}:
        return True
    return host is not None and origin == f"{scheme}://{host.lower()}"
