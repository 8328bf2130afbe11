"""A table's settings: what `autohost table new` and POST /api/tables create a table with.

Stored in the event log as JSON when the table is created and never changed afterwards, so
replaying the log rebuilds exactly the same game (the seed deals the same roles).
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

LANGUAGES = ("ru", "uk", "en")
MIN_SEATS, MAX_SEATS = 7, 12  # plugin/rules/state.py DISTRIBUTION
ROLE_NAMES = ("don", "mafia", "sheriff", "civilian")
MAX_NAME = 40
MAX_TITLE = 80  # a club's or a host's name
# The synthesis engines a table may ask for (voice/engines.py ENGINE_CHOICES), and the
# shape of a voice's name (voice/engines.py FREE_VOICES says which are allowed).
VOICE_ENGINES = ("auto", "rhvoice", "espeak")
VOICE_NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")
# A voice pack is named by its folder (voice/pack.py NAME): no separators, no "..".
VOICE_PACK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
MAX_ROOM_NAME = 128  # a LiveKit room name
# Characters no shown name may hold: controls (NUL, ESC, line breaks), format characters
# (direction overrides that reverse what follows on the tiles and the protocol sheet),
# surrogates, private code points, line and paragraph separators. The joiners are format
# characters too but belong in names: ZWJ inside emoji (👩‍💻, ❤️‍🔥), ZWNJ in Persian
# spelling. Unassigned code points are allowed: Python's tables lag Unicode's new emoji.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
JOINERS = frozenset({"\u200c", "\u200d"})


def has_hidden_characters(text: str) -> bool:
    """Whether `text` holds a character that would garble where it is shown."""
    return any(unicodedata.category(c) in HIDDEN_CATEGORIES and c not in JOINERS for c in text)


def check_shown_text(settings: TableSettings) -> None:
    """A new table's names, club and host name hold nothing that garbles where they are
    shown (SettingsError). Not in from_record: a table already logged with such a name by
    an older version must still open."""
    for label, text in (("club", settings.club), ("host_name", settings.host_name)):
        if has_hidden_characters(text):
            raise SettingsError("bad_settings", f"{label} may not hold control characters")
    if any(has_hidden_characters(name) for name in settings.names):
        raise SettingsError("bad_names", "a name may not hold control characters")


class SettingsError(ValueError):
    """Bad table settings; `code` is stable, the message names the field."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSettings:
    preset: str = "online"
    language: str = "uk"
    seats: int = 10
    names: tuple[str, ...] = ()
    manual: bool = False
    seed: int = 0
    overrides: dict[str, Any] = field(default_factory=dict)  # rule settings over the preset
    roles: dict[int, str] | None = None  # dealt by the host instead of the seed (tests, demos)
    voice_pack: str | None = None  # a club's recorded voice (docs/voice.md); None: synthesis
    # The synthesis (docs/voice.md): "auto", "rhvoice" or "espeak"; None: the server's.
    voice_engine: str | None = None
    voice_name: str | None = None  # an RHVoice voice, e.g. "anatol"; None: the server's
    club: str = ""  # the club's name, on the protocol sheet
    host_name: str = ""  # the live host's (the judge's) name, on the protocol sheet
    livekit_room: str | None = None  # LiveKit mode: a club's room (default: from the table id)

    def name_of(self, seat: int) -> str:
        return self.names[seat - 1] if self.names else f"{seat}"

    def to_record(self) -> dict[str, Any]:
        record = asdict(self)
        record["names"] = list(self.names)
        if self.roles is not None:
            record["roles"] = {str(seat): role for seat, role in self.roles.items()}
        for optional in (
            "voice_pack", "voice_engine", "voice_name", "club", "host_name", "livekit_room",
        ):  # fmt: skip
            if not record[optional]:  # records of tables without them stay as they were
                del record[optional]
        return record

    @classmethod
    def from_record(cls, record: Any) -> TableSettings:
        """Validate settings from JSON (HTTP body, CLI, log); SettingsError names the problem."""
        if not isinstance(record, dict):
            raise SettingsError("bad_settings", "table settings must be an object")
        known = {"preset", "language", "seats", "names", "manual", "seed", "overrides", "roles",
                 "voice_pack", "voice_engine", "voice_name", "club", "host_name",
                 "livekit_room"}  # fmt: skip
        unknown = set(record) - known
        if unknown:
            raise SettingsError("bad_settings", f"unknown table settings {sorted(unknown)}")
        preset = record.get("preset", "online")
        language = record.get("language", "uk")
        seats = record.get("seats", 10)
        names = record.get("names", [])
        manual = record.get("manual", False)
        seed = record.get("seed")
        overrides = record.get("overrides", {})
        roles = record.get("roles")
        voice_pack = record.get("voice_pack")
        voice_engine, voice_name = record.get("voice_engine"), record.get("voice_name")
        if voice_engine is not None and voice_engine not in VOICE_ENGINES:
            raise SettingsError(
                "bad_voice", f"voice_engine must be one of {VOICE_ENGINES}, not {voice_engine!r}"
            )
        if voice_name is not None and (
            not isinstance(voice_name, str) or not VOICE_NAME.fullmatch(voice_name)
        ):
            raise SettingsError(
                "bad_voice", f"voice_name must be an RHVoice voice's name, not {voice_name!r}"
            )
        club, host_name = record.get("club", ""), record.get("host_name", "")
        for label, text in (("club", club), ("host_name", host_name)):
            if not isinstance(text, str) or len(text) > MAX_TITLE:
                raise SettingsError("bad_settings", f"{label} must be text of at most {MAX_TITLE}")
        livekit_room = record.get("livekit_room")
        if livekit_room is not None and (
            not isinstance(livekit_room, str)
            or not 1 <= len(livekit_room) <= MAX_ROOM_NAME
            or not livekit_room.isprintable()
            or livekit_room != livekit_room.strip()
        ):
            raise SettingsError(
                "bad_room", f"livekit_room is 1..{MAX_ROOM_NAME} printable characters"
            )
        if not isinstance(preset, str) or not preset.isidentifier():
            raise SettingsError("bad_preset", f"preset must be a preset name, not {preset!r}")
        if language not in LANGUAGES:
            raise SettingsError("bad_language", f"language must be one of {LANGUAGES}")
        if not _is_int(seats) or not MIN_SEATS <= seats <= MAX_SEATS:
            raise SettingsError(
                "bad_seats", f"seats must be {MIN_SEATS}..{MAX_SEATS}, not {seats!r}"
            )
        if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
            raise SettingsError("bad_names", "names must be a list of strings")
        names = tuple(n.strip() for n in names)
        if names and len(names) != seats:
            raise SettingsError("bad_names", f"{len(names)} names for {seats} seats")
        if any(not n or len(n) > MAX_NAME for n in names):
            raise SettingsError("bad_names", f"each name is 1..{MAX_NAME} characters")
        if not isinstance(manual, bool):
            raise SettingsError("bad_settings", "manual must be true or false")
        if seed is None:
            seed = secrets.randbits(63)
        if not _is_int(seed) or seed < 0:
            raise SettingsError(
                "bad_settings", f"seed must be a non-negative integer, not {seed!r}"
            )
        if not isinstance(overrides, dict):
            raise SettingsError("bad_settings", "overrides must be an object of rule settings")
        parsed_roles: dict[int, str] | None = None
        if roles is not None:
            if not isinstance(roles, dict):
                raise SettingsError("bad_roles", "roles must be an object {seat: role}")
            parsed_roles = {}
            for key, role in roles.items():
                seat = int(key) if isinstance(key, str) and key.isascii() and key.isdigit() else key
                if not _is_int(seat) or not 1 <= seat <= seats or role not in ROLE_NAMES:
                    raise SettingsError("bad_roles", f"roles: {key!r}: {role!r} is not valid")
                parsed_roles[seat] = role
        if voice_pack is not None and (
            not isinstance(voice_pack, str) or not VOICE_PACK_NAME.fullmatch(voice_pack)
        ):
            raise SettingsError(
                "bad_voice_pack",
                f"voice_pack must be a voice pack's folder name (letters, digits, '-', '_'; "
                f"no '/' or '..'), not {voice_pack!r}",
            )
        return cls(
            preset=preset,
            language=language,
            seats=seats,
            names=names,
            manual=manual,
            seed=seed,
            overrides=dict(overrides),
            roles=parsed_roles,
            voice_pack=voice_pack,
            voice_engine=voice_engine,
            voice_name=voice_name,
            club=club.strip(),
            host_name=host_name.strip(),
            livekit_room=livekit_room,
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
