"""One configuration for every server this project runs: `autohost serve`, the LiveKit
mode and the demo are the same server with different options."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from plugin.web.ice import IceSettings

if TYPE_CHECKING:  # an embedded server never loads the LiveKit SDK
    from plugin.host.ports import Clock
    from plugin.rooms.livekit.tokens import Credentials

DEFAULT_DB = Path("var/autohost.db")
Media = Literal["embedded", "livekit", "none"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LiveKitOptions:
    """Tables in a club's LiveKit server: every table in its own room (`room` None, as
    `autohost serve --room livekit`), or the one table of `autohost livekit --room NAME`."""

    credentials: Credentials
    room: str | None = None  # the one table's room; None: every table in its own room
    table: str | None = None  # with `room`: an existing table's id; default: a new table
    seats: int = 10
    preset: str = "online"
    language: str = "uk"
    grace: float = 10.0  # seconds a participant may be gone before he counts as left
    reconcile: float = 5.0  # seconds between permission reconciles


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerOptions:
    host: str = "127.0.0.1"
    port: int = 8000  # 0 picks a free port
    db: Path | str = DEFAULT_DB  # a SQLite file, or a postgresql:// URL (several servers)
    admin_key: str | None = None  # default: $AUTOHOST_ADMIN_KEY or the file beside the db
    base_url: str | None = None  # links' base; default: the URL the server listens on
    media: Media = "embedded"
    voice: bool = True
    # The synthesis (voice.engines): "auto" (RHVoice where installed, else espeak-ng),
    # "rhvoice" or "espeak"; and (language, RHVoice voice) pairs over the catalogues'.
    voice_engine: str = "auto"
    rhvoice_voices: tuple[tuple[str, str], ...] = ()
    livekit: LiveKitOptions | None = None  # with media="livekit"
    voiced_table: str | None = None  # embedded: only this table gets a room and a voice
    secret: bytes | None = None  # default: $AUTOHOST_SECRET or the file beside the db
    clock: Clock | None = None  # default: the event loop's
    # HTTPS served by this process: both files, or neither (plain HTTP, or a proxy's TLS).
    tls_cert: Path | None = None
    tls_key: Path | None = None
    # Behind a reverse proxy: the proxies' addresses whose X-Forwarded-For/-Proto are
    # believed (uvicorn's forwarded_allow_ips; "*" for any). Empty: no forwarded headers.
    trusted_proxies: tuple[str, ...] = ()
    # Open connections one client address may hold (plugin/server/http.py; 0: no cap).
    connections_per_address: int = 256
    # The club's other servers on the same PostgreSQL (their public origins): the pages
    # are told them and try them in turn, and their pages may open this one's socket.
    peers: tuple[str, ...] = ()
    ice: IceSettings = field(
        default_factory=IceSettings
    )  # STUN/TURN for every page and server-side peer
    udp_ports: tuple[int, int] | None = None  # the server's WebRTC peers' UDP ports
    max_spectators: int = 50  # embedded: spectators' audio connections per table (issue 17)

    def __post_init__(self) -> None:
        if (self.media == "livekit") != (self.livekit is not None):
            raise ValueError("LiveKit options go with media='livekit', and only with it")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both the certificate and its key")
        if not 0 <= self.max_spectators <= 1000:
            raise ValueError(f"rtc.max_spectators is 0..1000, not {self.max_spectators}")
        if self.udp_ports is not None:
            low, high = self.udp_ports
            if not 1024 <= low <= high <= 65535:
                raise ValueError(f"the UDP port range must lie in 1024-65535: {low}-{high}")

    @property
    def scheme(self) -> str:
        return "https" if self.tls_cert else "http"
