"""Security headers on every HTTP answer (issue 31, "headers").

The outside check found no Content-Security-Policy, no `frame-ancestors` or
X-Frame-Options and no `nosniff` on any page: another site could frame the console and
trick the host into clicking "Disqualify" (clickjacking), and a script injected into a page
would run. Every answer now carries:

- a strict Content-Security-Policy: the pages load only their own scripts and styles (no
  inline script, no inline style but the protocol sheet's, allowed by its hash), connect
  only to this server and its peers, and may be framed by nobody (`frame-ancestors
  'none'`); the LiveKit demo page may also connect to the LiveKit server it is given.
- `X-Frame-Options: DENY` (for browsers without frame-ancestors), `X-Content-Type-Options:
  nosniff`, `Referrer-Policy: no-referrer` (the pages hold tokens).
An answer that sets a header itself keeps its own.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Sequence

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .limits import origin_of

# Pages whose script connects to a server the page is told (the LiveKit demo's ?url=).
_ANY_SERVER_PREFIXES = ("/static/livekit/",)


def style_hash(style: str) -> str:
    """The CSP source that allows one inline <style> element whose text is `style`."""
    digest = hashlib.sha256(style.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def _socket_origin(origin: str) -> str:
    return origin.replace("https://", "wss://", 1).replace("http://", "ws://", 1)


def content_security_policy(
    *, connect: Iterable[str] = (), styles: Iterable[str] = (), any_server: bool = False
) -> str:
    """The policy every page runs under: `connect` the other origins its scripts may reach
    (the club's peers: HTTP and their WebSockets), `styles` inline styles allowed by hash."""
    origins = sorted({origin_of(url) for url in connect if "://" in url})
    sockets = [_socket_origin(origin) for origin in origins]
    # blob: the end screen's protocol links, fetched once and opened from memory (end.js).
    reach = ["'self'", "blob:", *origins, *sockets]
    # http: too, as ws: (a LiveKit server without TLS, `livekit-server --dev`): the live
    # host's page calls that server's RoomService itself when no bot comes back
    # (static/livekit/open-microphones.js).
    reach += ["https:", "wss:", "http:", "ws:"] if any_server else []
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", *(style_hash(s) for s in styles)],
        "img-src": ["'self'", "data:", "blob:"],
        "media-src": ["'self'", "blob:"],
        "connect-src": reach,
        "frame-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(values)}" for name, values in directives.items())


class SecurityHeaders:
    """ASGI middleware: the headers above on every HTTP answer."""

    def __init__(
        self, app: ASGIApp, connect: Sequence[str] = (), styles: Sequence[str] = ()
    ) -> None:
        self.app = app
        self.policy = content_security_policy(connect=connect, styles=styles)
        self.open_policy = content_security_policy(connect=connect, styles=styles, any_server=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        policy = self.open_policy if path.startswith(_ANY_SERVER_PREFIXES) else self.policy

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", policy)
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "no-referrer")
            await send(message)

        await self.app(scope, receive, send_with_headers)
