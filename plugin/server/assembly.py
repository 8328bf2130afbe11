"""The one place that wires a server: the web app, the host registry, the event log (a
SQLite file, or PostgreSQL with leases: chosen here and nowhere else), the room backend and
the voice, from one ServerOptions; and the one way it runs (plugin.server.http).

    hosting = build(options)               # an ASGI app and what it is made of
    await run(options, session=...)        # listen, print the URL, run a session, stop
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import socket
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.routing import BaseRoute

from plugin.club.pages import club_routes
from plugin.club.site import ClubSite
from plugin.eventlog import BadLogFile, is_url, log_opener, open_log
from plugin.host.ports import Leases, Log
from plugin.host.registry import RoomFactory, VoiceFactory
from plugin.host.silent import SilentVoice
from plugin.protocol import sheet
from plugin.signing import BadKeyFile, load_admin_key
from plugin.tournament.api import tournament_routes
from plugin.web.app import create_app
from plugin.web.context import Server, ServerConfig
from plugin.web.ice import server_ice_routes

from .collector import Collector
from .embedded import EmbeddedTables, embedded_routes
from .exports import protocol_routes
from .http import Listening, listening, wait_stopped
from .options import ServerOptions

if TYPE_CHECKING:  # an embedded server never loads the LiveKit SDK
    from .livekit import LiveKitTables

# With the log on PostgreSQL the secret and admin key files are kept here (var/postgres.*);
# servers on several machines share $AUTOHOST_SECRET and $AUTOHOST_ADMIN_KEY instead.
POSTGRES_FILES = Path("var/postgres")


@dataclass(slots=True, kw_only=True)
class Hosting:
    """A built server: the app, its shared state, and the media side's table factories."""

    options: ServerOptions
    app: Starlette
    tables: EmbeddedTables | LiveKitTables | None  # None: media="none"

    @property
    def server(self) -> Server:
        server: Server = self.app.state.server
        return server


def build(options: ServerOptions) -> Hosting:
    """The server `options` describe, ready to be served (its lifespan opens the tables)."""
    room_factory: RoomFactory | None = None
    voice_factory: VoiceFactory | None = None
    routes: Sequence[BaseRoute | Callable[[Server], Sequence[BaseRoute]]] = ()
    tables: EmbeddedTables | LiveKitTables | None = None
    one_table: str | None = None  # autohost livekit --room: this table and no other
    if options.voice:
        from voice import engines

        engines.configure(options.voice_engine, dict(options.rhvoice_voices))
        engines.resolve_engine()  # asks for RHVoice once now (logs a fallback), not per table
    if options.media == "embedded":
        from plugin.rooms.embedded.ice import (
            rtc_ice_servers,
            use_host_and_loopback_ice,
            use_udp_port_range,
        )

        use_host_and_loopback_ice()
        if options.udp_ports is not None:
            use_udp_port_range(*options.udp_ports)
        ice = options.ice
        tables = EmbeddedTables(
            table_id=options.voiced_table,
            voice=options.voice,
            max_listeners=options.max_spectators,
            ice_servers=(lambda: rtc_ice_servers(ice.servers("server")))
            if ice.stun or ice.turn
            else None,
        )
        room_factory, voice_factory = tables.room, tables.voice
        routes = (*embedded_routes(tables), server_ice_routes(ice))
    elif options.media == "livekit":
        from .livekit import LiveKitTables

        lk = options.livekit
        assert lk is not None  # ServerOptions checks it
        from plugin.host.registry import new_table_id

        one_table = (lk.table or new_table_id()) if lk.room is not None else None
        tables = livekit_tables = LiveKitTables(
            lk.credentials, only=one_table,
            rooms={one_table: lk.room} if one_table is not None and lk.room else None,
            voice_factory=None if options.voice else (lambda language: SilentVoice()),
            reconcile_every=lk.reconcile, grace=lk.grace,
        )  # fmt: skip
        room_factory, voice_factory = livekit_tables.room, livekit_tables.voice
        routes = (livekit_tables.routes,)
    routes = (*routes, protocol_routes)  # the end screen's protocol links, on either media
    club = ClubSite()  # the club above the tables (issue 33): its API, pages, lobby members
    routes = (*routes, club_routes(club), tournament_routes(club))  # issue 34: its tournaments
    db_path, log = _event_log(options)
    config = ServerConfig(
        db_path=db_path,
        log=log,
        admin_key=load_admin_key(db_path, options.admin_key),
        base_url=options.base_url or f"{options.scheme}://{options.host}:{options.port}",
        secret=options.secret,
        clock=options.clock,
        room_factory=room_factory,
        voice_factory=voice_factory,
        routes=routes,
        peers=options.peers,
        only=one_table,
        member=club.member,
        inline_styles=(sheet.STYLE,),  # the protocol sheet's, under the pages' CSP
    )
    return Hosting(options=options, app=create_app(config), tables=tables)


def _event_log(options: ServerOptions) -> tuple[Path, Callable[[], tuple[Log, Leases | None]]]:
    """Where the server's own files live (secret, admin key: beside a SQLite log, in var/
    with PostgreSQL) and how its log is opened (at each start of the app): the SQLite file,
    or, for a postgresql:// URL, the shared log with the leases of its tables under this
    server's name."""
    if not is_url(options.db):
        return Path(options.db), log_opener(Path(options.db))
    owner = f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(3)}"
    return POSTGRES_FILES, log_opener(options.db, owner=owner)


Session = Callable[[Hosting, Listening], contextlib.AbstractAsyncContextManager[None]]


async def run(
    options: ServerOptions, *, name: str = "autohost", session: Session | None = None
) -> int:
    """Serve until SIGTERM/SIGINT: print where, run `session` (entered once the server
    listens, exited as soon as it is asked to stop), then shut down gracefully (every
    table's microphones given back, the log flushed). A log file that is not an event log
    (empty, damaged, another file) stops it before it listens: one line, status 2."""
    with contextlib.ExitStack() as held:
        try:
            if not is_url(str(options.db)):  # PostgreSQL says what is wrong when it is opened
                held.enter_context(hosting_lock(Path(options.db)))
                open_log(options.db).close()  # opened again by the app, once listening
        except (BadLogFile, AlreadyHosted) as error:
            print(f"{name}: {error}", file=sys.stderr, flush=True)
            return 2
        return await _serve(options, name, session)


class AlreadyHosted(Exception):
    """Another server process already hosts the tables of this SQLite file."""


@contextlib.contextmanager
def hosting_lock(db: Path) -> Iterator[None]:
    """Hold the hosting lock of a SQLite log for as long as this server runs. With SQLite
    there is no lease (that is PostgreSQL's job, docs/servers.md): two servers on one file
    would both replay and time the same tables, both open and close microphones, and
    interleave their writes. So the second one is refused before it touches anything. The
    lock is the kernel's (flock on `<db>.lock`): a killed server loses it with its process,
    and `autohost table new` / `protocol` (which only add a table or read) never take it."""
    path = db.with_name(db.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:  # a file where the folder should be, a folder it may not write
        raise BadLogFile(f"{db}: its lock {path} cannot be made ({error.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
            raise AlreadyHosted(
                f"{db} is already hosted by another server{f' (pid {pid})' if pid else ''}; "
                "one SQLite log has one server (several servers share PostgreSQL)"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


async def _serve(options: ServerOptions, name: str, session: Session | None) -> int:
    try:
        hosting = build(options)
    except BadKeyFile as error:  # an empty or unreadable key file: one line, named
        print(f"{name}: {error}", file=sys.stderr, flush=True)
        return 2
    tls = (options.tls_cert, options.tls_key) if options.tls_cert and options.tls_key else None
    async with listening(
        hosting.app,
        host=options.host,
        port=options.port,
        tls=tls,
        trusted_proxies=options.trusted_proxies,
        connections_per_address=options.connections_per_address,
    ) as where:
        if options.base_url is None:  # links carry the port actually picked
            hosting.server.config = replace(hosting.server.config, base_url=where.url)
        # Short full collections: what the start made and what survives each full pass
        # is frozen (plugin/server/collector.py).
        collector = Collector()
        collector.start()
        try:
            print(f"{name}: listening on {where.url} (db {_shown(options.db)})", flush=True)
            async with session(hosting, where) if session else _nothing():
                await wait_stopped(where)
        finally:
            await collector.stop()
    return 0


@contextlib.asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield


def _shown(db: Path | str) -> str:
    """The log's name as printed: a URL without its password."""
    if not is_url(db):
        return str(db)
    from urllib.parse import urlsplit

    url = urlsplit(str(db))
    host = url.hostname or ""
    return f"{url.scheme}://{url.username + '@' if url.username else ''}{host}" + (
        f":{url.port}{url.path}" if url.port else url.path
    )
