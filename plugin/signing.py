"""Signing and links: every connection carries a signed token bound to one table and one seat
(or the host, or "watch" for any number of spectators); the server secret and the admin key
live here too, so the web and the command line share one implementation.

A token is `base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`, where the
payload is compact JSON {"t": table id, "s": seat number, "host" or "watch", "e": expiry (unix
seconds), "n": nonce, "g": the seat's link generation, omitted when 0}. Re-issuing a
seat's link starts a new generation, and the server refuses tokens of an older one.
`verify` refuses a watch token; only `verify_any` (the table's socket) admits one, so no
other endpoint (video, audio, LiveKit, the API) ever admits a spectator. An "invite" token
(one per table, issue 17) opens only the lobby: `verify_any` refuses it and only
`verify_invite` admits it. The
server secret lives beside the database (created once, mode 0600) or comes from the
AUTOHOST_SECRET environment variable.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec

HOST: Literal["host"] = "host"
WATCH: Literal["watch"] = "watch"  # a spectator's link: the public view, no voice, no vote
INVITE: Literal["invite"] = "invite"  # the table's invite link: the lobby, nothing else
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
    generation: int = 0  # the seat's link generation it was issued in (see Table.reissue)

    @property
    def is_host(self) -> bool:
        return self.seat == HOST


@dataclass(frozen=True, slots=True, kw_only=True)
class Watch:
    """A verified watch token: the public view of one table, for any number of spectators."""

    table: str
    expires: float
    generation: int = 0
    seat: Literal["watch"] = WATCH
    is_host: Literal[False] = False
    # The stream overlay's token (the same generation as the watch link's): only it may be
    # sent roles and night actions, and only while the host streams with roles (issue 17).
    stream: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Invite:
    """A verified invite token: a place in one table's lobby, never a seat."""

    table: str
    expires: float
    generation: int = 0


class _Payload(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    t: str
    s: int | Literal["host", "watch", "invite"]
    e: int
    n: str
    g: int = 0  # link generation (omitted for the first, so older tokens read the same)
    k: int = 0  # 1: the stream overlay's watch token (omitted otherwise)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


_B64URL = re.compile(r"[A-Za-z0-9_-]+")


def _unb64(text: str) -> bytes:
    """Strict base64url without padding: one text per byte string. Anything else (padding,
    the standard alphabet, stray characters, unused bits set) is refused, so a token has
    exactly one spelling and a signature cannot be dressed up as a different token."""
    if not _B64URL.fullmatch(text):
        raise ValueError("not base64url")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(raw) != text:
        raise ValueError("not the canonical base64url of its bytes")
    return raw


class Signer:
    """Issues and verifies tokens with one server secret.

    `clock` is the time a token's expiry is stamped with and checked against. A server on
    a shared log sets it to the log's clock (EventLog.wall: the database's), so a token one
    server issued expires at the same moment on every other whatever their own clocks say
    (issue 31: "every deadline that guards a secret must not trust one server's wall clock
    against another's"). Alone, it is this machine's clock."""

    def __init__(self, secret: bytes, *, clock: Callable[[], float] = time.time) -> None:
        if len(secret) < 16:
            raise ValueError("the token secret must be at least 16 bytes")
        self._secret = secret
        self.clock = clock

    def issue(
        self,
        table: str,
        seat: int | Literal["host", "watch", "invite"],
        *,
        lifetime: float = DEFAULT_LIFETIME,
        now: float | None = None,
        generation: int = 0,
        stream: bool = False,
    ) -> str:
        """A signed token; `stream` marks a watch token as the stream overlay's."""
        if stream and seat != WATCH:
            raise ValueError("only a watch token can be the stream overlay's")
        if not (
            seat in (HOST, WATCH, INVITE)
            or (isinstance(seat, int) and not isinstance(seat, bool) and seat > 0)
        ):
            raise ValueError(
                f"a token is for a seat number, 'host', 'watch' or 'invite', not {seat!r}"
            )
        issued = self.clock() if now is None else now
        payload = _Payload(
            t=table,
            s=seat,
            e=int(issued + lifetime),
            n=secrets.token_hex(6),
            g=generation,
            k=1 if stream else 0,
        )
        body = msgspec.json.encode(payload)
        return f"{_b64(body)}.{_b64(self._sign(body))}"

    def verify(self, token: str, *, table: str | None = None, now: float | None = None) -> Grant:
        """The grant of a genuine, unexpired seat or host token (for `table`, when given);
        else TokenError (a watch token too: token_watch_only)."""
        grant = self.verify_any(token, table=table, now=now)
        if isinstance(grant, Watch):
            raise TokenError("token_watch_only", "a watch link only opens the watch page")
        return grant

    def verify_any(
        self, token: str, *, table: str | None = None, now: float | None = None
    ) -> Grant | Watch:
        """Like `verify`, and a watch token is admitted as a `Watch`."""
        grant = self._verify(token, table=table, now=now)
        if isinstance(grant, Invite):
            raise TokenError("token_invite_only", "an invite link only opens the lobby")
        return grant

    def verify_invite(
        self, token: str, *, table: str | None = None, now: float | None = None
    ) -> Invite:
        """The invite of a genuine, unexpired invite token; any other token is refused
        (token_not_invite), so a seat's link never stands in for the lobby's."""
        grant = self._verify(token, table=table, now=now)
        if not isinstance(grant, Invite):
            raise TokenError("token_not_invite", "this is not the table's invite link")
        return grant

    def _verify(
        self, token: str, *, table: str | None = None, now: float | None = None
    ) -> Grant | Watch | Invite:
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
        current = self.clock() if now is None else now
        if payload.e <= current:
            raise TokenError("token_expired", "the token has expired; ask the host for a new link")
        if table is not None and payload.t != table:
            raise TokenError("token_other_table", f"the token is for another table, not {table!r}")
        seat = payload.s
        if seat == WATCH:
            stream = payload.k == 1
            return Watch(table=payload.t, expires=payload.e, generation=payload.g, stream=stream)
        if seat == INVITE:
            return Invite(table=payload.t, expires=payload.e, generation=payload.g)
        return Grant(table=payload.t, seat=seat, expires=payload.e, generation=payload.g)

    def _sign(self, body: bytes) -> bytes:
        return hmac.new(self._secret, body, hashlib.sha256).digest()


def load_secret(path: Path) -> bytes:
    """The server secret: $AUTOHOST_SECRET, else the file at `path` (created once, mode 0600)."""
    from_env = os.environ.get(SECRET_ENV)
    if from_env:
        return from_env.encode()
    return private_key_file(
        path,
        lambda: secrets.token_hex(32),
        "the server secret file",
        "every link signed with the old secret stops working",
    ).encode()


class BadKeyFile(ValueError):
    """A secret or admin key file that cannot serve (unreadable, or empty): named."""


def private_key_file(path: Path, make: Callable[[], str], what: str, if_deleted: str) -> str:
    """The key kept in the file at `path`, made by `make` once when there is none (mode
    0600). It is written whole or not at all (a temporary file, synced, then linked into
    place), so a crash or a full disk never leaves an empty key file behind; one that is
    empty all the same (made by hand, truncated) is refused with its name: an empty key
    would match an empty Authorization header and sign nothing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        key = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        try:
            key = _make_key_file(path, make)
        except OSError as error:
            raise BadKeyFile(f"cannot make {what} {path}: {error.strerror}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BadKeyFile(f"cannot read {what} {path}: {error}") from None
    if not key:
        raise BadKeyFile(
            f"{what} {path} is empty: write the key in it, or delete it and a new one is "
            f"made ({if_deleted})"
        )
    return key


def _make_key_file(path: Path, make: Callable[[], str]) -> str:
    key = make()
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(key)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)  # fails if another process made it meanwhile
        except FileExistsError:
            return path.read_text(encoding="utf-8").strip()  # theirs, whole (it was linked)
    finally:
        temporary.unlink(missing_ok=True)
    return key


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
    generations: Mapping[int | str, int] | None = None,
) -> dict[str, Any]:
    """Each seat's link, the host's link, the spectators' watch link and the players' invite
    link, each carrying its token (issue 4), issued in each seat's current link generation."""
    base = base_url.rstrip("/")
    generation = generations or {}
    host_token = signer.issue(table, HOST, lifetime=lifetime, generation=generation.get(HOST, 0))
    result: dict[str, Any] = {
        "id": table,
        "host": {"link": f"{base}/t/{table}/host#token={host_token}", "token": host_token},
        "watch": _watch_link(signer, base, table, lifetime, generation.get(WATCH, 0)),
        "invite": invite_link(signer, base, table, lifetime, generation.get(INVITE, 0)),
        "seats": [],
    }
    for seat in range(1, seats + 1):
        token = signer.issue(table, seat, lifetime=lifetime, generation=generation.get(seat, 0))
        result["seats"].append(
            {
                "seat": seat,
                "name": names[seat - 1] if names else str(seat),
                "link": f"{base}/t/{table}/play#token={token}",
                "token": token,
            }
        )
    return result


def _watch_link(
    signer: Signer, base: str, table: str, lifetime: float, generation: int
) -> dict[str, str]:
    """One link for any number of spectators (the watch page), and the stream overlay for OBS
    with its own token: only the overlay may show roles, after the host's delay."""
    token = signer.issue(table, WATCH, lifetime=lifetime, generation=generation)
    stream = signer.issue(table, WATCH, lifetime=lifetime, generation=generation, stream=True)
    return {
        "link": f"{base}/t/{table}/watch#token={token}",
        "overlay": f"{base}/t/{table}/overlay#token={stream}",
        "token": token,
        "stream_token": stream,
    }


def invite_link(
    signer: Signer, base: str, table: str, lifetime: float = DEFAULT_LIFETIME, generation: int = 0
) -> dict[str, str]:
    """One link for every player of the table: its lobby, where he types his name and waits
    for the host to seat him (issue 17)."""
    token = signer.issue(table, INVITE, lifetime=lifetime, generation=generation)
    return {"link": f"{base.rstrip('/')}/t/{table}/join#token={token}", "token": token}


ADMIN_KEY_ENV = "AUTOHOST_ADMIN_KEY"


def read_admin_key_file(path: Path) -> str:
    """The admin key kept in a file (`--admin-key-file`). A key is never taken from the
    command line, where every local user can read it (ps, /proc/PID/cmdline)."""
    try:
        key = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ValueError(f"cannot read the admin key file {path}: {error.strerror}") from None
    if not key:
        raise ValueError(f"the admin key file {path} is empty")
    return key


def load_admin_key(db_path: Path, given: str | None = None) -> str:
    """The admin key: given (read from a file by the caller, or set in code), else
    $AUTOHOST_ADMIN_KEY, else the file beside the db (created once, mode 0600), so
    `autohost table new --server` can read it on the same machine."""
    if given:
        return given
    from_env = os.environ.get(ADMIN_KEY_ENV)
    if from_env:
        return from_env
    return private_key_file(
        db_path.with_name(db_path.name + ".admin-key"),
        lambda: secrets.token_urlsafe(24),
        "the admin key file",
        "give the new key to whoever used the old one",
    )
