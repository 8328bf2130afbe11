"""One configuration for every server this project runs: `autohost serve`, the LiveKit
mode and the demo are the same server with different options."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # an embedded server never loads the LiveKit SDK
    from plugin.host.ports import Clock
    from plugin.rooms.livekit.tokens import Credentials

DEFAULT_DB = Path("var/autohost.db")
Media = Literal["embedded", "livekit", "none"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LiveKitOptions:
    """The table hosted in a club's LiveKit room (one per server today)."""

    credentials: Credentials
    room: str
    table: str | None = None  # an existing table's id; default: a new table
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
    livekit: LiveKitOptions | None = None  # with media="livekit"
    voiced_table: str | None = None  # embedded: only this table gets a room and a voice
    secret: bytes | None = None  # default: $AUTOHOST_SECRET or the file beside the db
    clock: Clock | None = None  # default: the event loop's

    def __post_init__(self) -> None:
        if (self.media == "livekit") != (self.livekit is not None):
            raise ValueError("LiveKit options go with media='livekit', and only with it")
