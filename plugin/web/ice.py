"""The ICE servers a page uses, and `POST /api/ice`, which hands them to the page.

A page behind a home router needs STUN to learn its public address and TURN when its NAT
allows no hole punching. TURN credentials are short-lived and minted per request from the
TURN server's shared secret, in coturn's REST API scheme (`use-auth-secret`):

    username = "<unix expiry>:<who>"      password = base64(HMAC-SHA1(secret, username))

so the TURN server checks them with the secret alone, and nothing long-lived reaches a
page. The route wants the page's own token in `Authorization: Bearer ...` (as
`/rtc/{table}/offer` does): no page source holds a credential and no URL or log line does.

    POST /api/ice   Authorization: Bearer <token>
    -> 200 {"iceServers": [{"urls": [...]}, {"urls": [...], "username", "credential"}],
            "iceTransportPolicy": "all" | "relay", "ttl": seconds the credential lives}
    -> 401 {"error": "forbidden", ...} without a token this server accepts
    -> 429 {"error": "too_many_requests", ...} past the rate of its token or its address

Issue 31: a public watch link's TURN credential allocated a real relay, one minted before
a watch re-issue still allocated after it, and 300 requests in 1.55 s were all answered.
So spectators get STUN only (they only receive, from this server, which they reach
themselves; no credential of theirs can relay anything), and minting is rate-limited per
token (a spectator's: per token and address) and per address.

And a seat's credential outlived a re-issue of the seat by its lifetime (6 h then): coturn
checks a REST credential with the shared secret alone, so nothing can revoke one; only
its lifetime bounds it. So it lives `turn_ttl` (10 min by default), and a page that stays
keeps its credentials fresh through this route at half their lifetime (`ttl` in the
answer; ice.js keepIceFresh), which refuses a re-issued link: after a re-issue the old
device can allocate a relay for at most `turn_ttl` more, the current one never stops
(docs/deploy.md; tests/hostile/test_turn.py with a real coturn). An allocation made before
stays while its client refreshes it (coturn keeps its key), but the re-issue closed every
socket of the old device and its peers left it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from plugin.signing import TokenError

from .limits import RateLimit

if TYPE_CHECKING:
    from .context import Server

Policy = Literal["all", "relay"]
# Seconds a page's TURN credential lives: after a re-issue of its seat, the old device may
# allocate a relay for this long at most (issue 31). Pages refresh theirs at half of it.
DEFAULT_TURN_TTL = 600
MIN_TURN_TTL = 10


def turn_credentials(secret: bytes, who: str, *, ttl: int, now: float) -> tuple[str, str]:
    """(username, password) for the TURN REST API: valid until now + ttl."""
    username = f"{int(now) + ttl}:{who}"
    digest = hmac.new(secret, username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode()


@dataclass(frozen=True, slots=True, kw_only=True)
class IceSettings:
    """STUN and TURN servers for every page and every server-side peer.

    `stun`, `turn`: URLs as WebRTC spells them (`stun:host:3478`,
    `turn:host:3478?transport=udp`, `turns:host:5349?transport=tcp`). `turn_secret`: the
    TURN server's `static-auth-secret`. `policy`: "relay" forces every connection through
    TURN (tests; a club that must hide players' addresses from each other).
    """

    stun: tuple[str, ...] = ()
    turn: tuple[str, ...] = ()
    turn_secret: bytes | None = None
    turn_ttl: int = DEFAULT_TURN_TTL
    policy: Policy = "all"

    def __post_init__(self) -> None:
        if self.turn and not self.turn_secret:
            raise ValueError("TURN servers need the TURN shared secret (turn_secret)")
        if self.turn_ttl < MIN_TURN_TTL:
            raise ValueError(f"turn_ttl is at least {MIN_TURN_TTL} seconds, not {self.turn_ttl}")
        if self.policy not in ("all", "relay"):
            raise ValueError(f"policy is 'all' or 'relay', not {self.policy!r}")
        for url in (*self.stun, *self.turn):
            scheme = url.split(":", 1)[0]
            wanted = ("stun", "stuns") if url in self.stun else ("turn", "turns")
            if scheme not in wanted or ":" not in url:
                raise ValueError(f"not a {wanted[0].upper()} URL: {url!r}")

    def servers(self, who: str, *, now: float | None = None) -> list[dict[str, Any]]:
        """The RTCIceServer entries for `who` (a seat, or the server), TURN credentials
        freshly minted."""
        entries: list[dict[str, Any]] = []
        if self.stun:
            entries.append({"urls": list(self.stun)})
        if self.turn:
            assert self.turn_secret is not None  # __post_init__
            moment = time.time() if now is None else now
            username, password = turn_credentials(
                self.turn_secret, who, ttl=self.turn_ttl, now=moment
            )
            entries.append({"urls": list(self.turn), "username": username, "credential": password})
        return entries

    def configuration(self, who: str, *, now: float | None = None) -> dict[str, Any]:
        """An RTCConfiguration for a browser page, and (with TURN) how long its credential
        lives: a duration, so the page's clock is never compared with ours."""
        answer: dict[str, Any] = {
            "iceServers": self.servers(who, now=now),
            "iceTransportPolicy": self.policy,
        }
        if self.turn:
            answer["ttl"] = self.turn_ttl
        return answer

    def spectator_configuration(self) -> dict[str, Any]:
        """A spectator's: STUN only, every route allowed (he only receives, from the
        server; "relay" hides players' addresses from each other, not his from us)."""
        entries = [{"urls": list(self.stun)}] if self.stun else []
        return {"iceServers": entries, "iceTransportPolicy": "all"}


# /api/ice per token (a page asks once a load for its audio, once for its video, and
# once a reconnect) and per address (a club hall's dozen players behind one router).
ICE_PER_SECOND, ICE_BURST = 0.5, 10
ICE_ADDRESS_PER_SECOND, ICE_ADDRESS_BURST = 2.0, 60
SPECTATOR = "watch"  # the `who` suffix of a spectator's token (Server.authorize_media)


# admit(token) -> a short name for the TURN username (e.g. "t1.3"), or None if refused.
Admit = Callable[[str], "str | Awaitable[str | None] | None"]


def ice_routes(ice: IceSettings, admit: Admit) -> list[BaseRoute]:
    """`POST /api/ice` for pages whose token `admit` accepts: a spectator's ("...watch")
    STUN only; each token at ICE_PER_SECOND (ICE_BURST at once), each address at
    ICE_ADDRESS_PER_SECOND."""
    per_address = RateLimit(ICE_ADDRESS_PER_SECOND, ICE_ADDRESS_BURST)
    per_token = RateLimit(ICE_PER_SECOND, ICE_BURST)

    async def endpoint(request: Request) -> JSONResponse:
        address = request.client.host if request.client else ""
        if not per_address.allow(address):
            return _too_many("too many ICE requests from this address; wait a little")
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        who = admit(token) if scheme.lower() == "bearer" and token else None
        if inspect.isawaitable(who):
            who = await who
        if who is None:
            message = "this needs the page's token (Authorization: Bearer)"
            return JSONResponse({"error": "forbidden", "message": message}, status_code=401)
        spectator = who.endswith(f".{SPECTATOR}")
        # Spectators share one link: each is limited by his own address too.
        if not per_token.allow((who, address) if spectator else who):
            return _too_many("this link asked for ICE servers too often; wait a little")
        answer = ice.spectator_configuration() if spectator else ice.configuration(who)
        return JSONResponse(answer, headers={"Cache-Control": "no-store"})

    return [Route("/api/ice", endpoint, methods=["POST"])]


def _too_many(message: str) -> JSONResponse:
    body = {"error": "too_many_requests", "message": message}
    return JSONResponse(body, status_code=429, headers={"Retry-After": "2"})


def server_ice_routes(ice: IceSettings) -> Callable[[Server], list[BaseRoute]]:
    """`ice_routes` for a whole server (plugin.web.context.Server): any seat's or the host's
    current token of an open table."""

    def routes(server: Server) -> list[BaseRoute]:
        def admit(token: str) -> str | None:
            try:
                table = server.claim(token).table
            except TokenError:
                return None
            seat = server.authorize_media(table, token)  # "watch": a spectator (STUN only)
            return None if seat is None else f"{table}.{seat}"

        return ice_routes(ice, admit)

    return routes
