"""The LiveKit server's own clock, as its answers tell it (issue 31, "time across servers").

A webhook's `created_at` is the LiveKit server's time; comparing it with this server's wall
clock (webhook.py: an event older than the room's first listing is history) made a server
10 s fast take a genuine join made just after its listing for a stale one (ignored until
the next reconcile), and one 10 s slow apply a captured join replayed from before it. So
the listing is dated by LiveKit itself: every answer of its HTTP API carries a `Date`
header (RFC 9110, 6.6.1: the origin server's clock, whole seconds; Go's net/http always
sends it), which `ServerClock` records for the RoomService session it is traced into.
"""

from __future__ import annotations

import email.utils
import logging
import types
from collections.abc import Callable

import aiohttp
from livekit.api import VideoGrants
from livekit.api._service import AUTHORIZATION, Service

from plugin.rooms.livekit.tokens import Credentials, service_token

log = logging.getLogger(__name__)


def stamp_calls(service: Service, creds: Credentials, clock: Callable[[], float] | None) -> None:
    """Every call of `service` carries a token stamped with `clock` (the log's, as our
    other tokens: tokens._sign) instead of the SDK's, stamped with this machine's clock
    (Service._auth_header: the SDK offers no clock of its own). None: the SDK's."""
    if clock is None:
        return

    def auth_header(grants: VideoGrants | None, sip: object = None) -> dict[str, str]:
        return {AUTHORIZATION: f"Bearer {service_token(creds, grants, clock=clock)}"}

    setattr(service, "_auth_header", auth_header)  # noqa: B010 (a method of the instance)


class ServerClock:
    """The `Date` of the latest answer of one LiveKit server (unix seconds), or None while
    none came (or none carried a Date)."""

    def __init__(self) -> None:
        self.last: float | None = None

    def session(self, timeout: aiohttp.ClientTimeout) -> aiohttp.ClientSession:
        """An HTTP session for the RoomService whose every answer's Date is read here (the
        caller closes it: LiveKitAPI leaves a session it was given open)."""
        config = aiohttp.TraceConfig()
        config.on_request_end.append(self._answered)
        return aiohttp.ClientSession(timeout=timeout, trace_configs=[config])

    async def _answered(
        self,
        session: aiohttp.ClientSession,
        context: types.SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        self.seen(params.response.headers.get("Date"))

    def seen(self, header: str | None) -> None:
        """Record an answer's Date header; a missing or malformed one changes nothing."""
        if not header:
            return
        try:
            dated = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError):
            log.warning("livekit: an answer's Date header is malformed: %r", header)
            return
        if dated.tzinfo is None:  # RFC 9110 dates are GMT; "-0000" parses naive
            return
        self.last = dated.timestamp()
