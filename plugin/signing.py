"""Signing and links: every connection carries a signed token bound to one table and one seat
(or the host); the server secret and the admin key live here too, so the web and the command
line share one implementation.

A token is `base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`, where the
payload is compact JSON {"t": table id, "s": seat number or "host", "e": expiry (unix
seconds), "n": nonce}. The server secret lives beside the database (created once, mode
0600) or comes from the AUTOHOST_SECRET environment variable.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec

HOST: Literal["host"] = "host"
DEFAULT_LIFETIME = 30 * 24 * 3600  # a link is valid for a club's month of games
SECRET_ENV = "AUTOHOST_SECRET"
MAX_TOKEN_LENGTH = 512


class TokenError(Exception):
    """A refused token. code: token_malformed | token_forged | token_expired | token_other_table."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True, kw_only=True)
class Grant:
    """What a verified token allows: one table, one seat (int) or the host role."""

    table: str
    seat: int | Literal["host"]
    expires: float

    @property
    def is_host(self) -> bool:
        return self.seat == HOST


class _Payload(msgspec.Struct, forbid_unknown_fields=True):
    t: str
    s: int | Literal["host"]
    e: int
    n: str


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    """Issues and verifies tokens with one server secret."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._secret = secret

    def issue(
        self,
        table: str,
        seat: int | Literal["host"],
        *,
        lifetime: float = DEFAULT_LIFETIME,
        now: float | None = None,
    ) -> str:
        if not (
            seat == HOST or (isinstance(seat, int) and not isinstance(seat, bool) and seat > 0)
        ):
            raise ValueError(f"a token is for a seat number or 'host', not {seat!r}")
        issued = time.time() if now is None else now
        payload = _Payload(t=table, s=seat, e=int(issued + lifetime), n=secrets.token_hex(6))
        body = msgspec.json.encode(payload)
        return f"{_b64(body)}.{_b64(self._sign(body))}"

    def verify(self, token: str, *, table: str | None = None, now: float | None = None) -> Grant:
        """The grant of a genuine, unexpired token (for `table`, when given); else TokenError."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
            raise TokenError("token_malformed", "no token, or a token of the wrong size")
        body_text, dot, signature_text = token.partition(".")
        try:
            body = _unb64(body_text)
            signature = _unb64(signature_text)
        except ValueError:
            raise TokenError("token_malformed", "the token is not base64url") from None
        if not dot or not body:
            raise TokenError("token_malformed", "the token has no signature part")
        if not hmac.compare_digest(signature, self._sign(body)):
            raise TokenError("token_forged", "the token's signature does not match")
        try:
            payload = msgspec.json.decode(body, type=_Payload)
        except msgspec.MsgspecError:
            raise TokenError("token_malformed", "the token's payload is not valid") from None
        current = time.time() if now is None else now
        if payload.e <= current:
            raise TokenError("token_expired", "the token has expired; ask the host for a new link")
        if table is not None and payload.t != table:
            raise TokenError("token_other_table", f"the token is for another table, not {table!r}")
        return Grant(table=payload.t, seat=payload.s, expires=payload.e)

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self._secret, body, hashlib.sha256).digest()


def load_secret(path: Path) -> bytes:
    """The server secret: $AUTOHOST_SECRET, else the file at `path` (created once, mode 0600)."""
    from_env = os.environ.get(SECRET_ENV)
    if from_env:
        return from_env.encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as out:
        secret = secrets.token_hex(32).encode()
        out.write(secret)
    return secret


def secret_path_for(db_path: Path) -> Path:
    """Where the secret of the server whose log is `db_path` lives: beside it."""
    return db_path.with_name(db_path.name + ".secret")


def table_links(
    signer: Signer,
    base_url: str,
    table: str,
    seats: int,
    *,
    names: list[str] | None = None,
    lifetime: float = DEFAULT_LIFETIME,
) -> dict[str, Any]:
    """Each seat's link and the host's link, each carrying its token (issue 4)."""
    base = base_url.rstrip("/")
    host_token = signer.issue(table, HOST, lifetime=lifetime)
    result: dict[str, Any] = {
        "id": table,
        "host": {"link": f"{base}/t/{table}/host#token={host_token}", "token": host_token},
        "seats": [],
    }
    for seat in range(1, seats + 1):
        token = signer.issue(table, seat, lifetime=lifetime)
        result["seats"].append(
            {
                "seat": seat,
                "name": names[seat - 1] if names else str(seat),
                "link": f"{base}/t/{table}/play#token={token}",
                "token": token,
            }
        )
    return result


ADMIN_KEY_ENV = "AUTOHOST_ADMIN_KEY"


def load_admin_key(db_path: Path, given: str | None = None) -> str:
    """The admin key: given, else $AUTOHOST_ADMIN_KEY, else the file beside the db (created
    once, mode 0600), so `autohost table new --server` can read it on the same machine."""
    if given:
        return given
    from_env = os.environ.get(ADMIN_KEY_ENV)
    if from_env:
        return from_env
    path = db_path.with_name(db_path.name + ".admin-key")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    key = secrets.token_urlsafe(24)
    with os.fdopen(fd, "w") as out:
        out.write(key)
    return key
