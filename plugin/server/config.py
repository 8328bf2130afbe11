"""The server's configuration file (TOML) and command line: one table of settings, each
settable in the file and as a flag, the flag winning; read into one ServerOptions.

    autohost serve --config config/server.example.toml [--port 8443 ...]

Every setting is a row of SETTINGS: its key in the file (`section.name`), its flag, what
it holds. A key the table does not know is refused with its name (a typo must not be
silently ignored), so is a value of the wrong type; both raise ConfigError, which the
command line prints and exits 2 on. Relative paths are relative to the directory the
server runs in (a systemd unit's WorkingDirectory), like the flags'.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plugin.web.ice import DEFAULT_TURN_TTL, IceSettings

from .options import DEFAULT_DB, ServerOptions
from .tls import TlsFilesError, check_tls_files

TURN_SECRET_ENV = "AUTOHOST_TURN_SECRET"


class ConfigError(ValueError):
    """A configuration that cannot be served: the message names the file, key or flag."""


def _port_range(value: Any) -> tuple[int, int]:
    """ "50000-50199" or [50000, 50199]."""
    if isinstance(value, str) and value.count("-") == 1:
        low, high = value.split("-")
        if low.strip().isdigit() and high.strip().isdigit():
            return int(low), int(high)
    if isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value):
        return int(value[0]), int(value[1])
    raise ValueError('a UDP port range, "LOW-HIGH" or [LOW, HIGH]')


def _string_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError("a string or a list of strings")


def _typed(kind: type) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if type(value) is not kind:
            raise ValueError(f"a {kind.__name__}")
        return value

    return check


def _log_location(value: Any) -> Path | str:
    """A SQLite file's path, or a PostgreSQL URL (kept as it is)."""
    from plugin.eventlog import is_url

    if isinstance(value, str) and is_url(value):
        return value
    return _path(value)


def _path(value: Any) -> Path:
    if not isinstance(value, str) or not value:
        raise ValueError("a path (a string)")
    return Path(value)


def _choice(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError("one of " + ", ".join(repr(c) for c in choices))
        return str(value)

    return check


def _rhvoice_voice(lang: str) -> Callable[[Any], str]:
    """A freely usable RHVoice voice of `lang` (voice.engines.FREE_VOICES)."""

    def check(value: Any) -> str:
        from voice.engines import VoiceChoiceError, check_rhvoice_voice

        if not isinstance(value, str):
            raise ValueError("an RHVoice voice's name")
        try:
            check_rhvoice_voice(value, lang)
        except VoiceChoiceError as exc:
            raise ValueError(str(exc)) from None
        return value

    return check


@dataclass(frozen=True, slots=True)
class Setting:
    key: str  # in the file: "name" or "section.name"
    parse: Callable[[Any], Any]  # a TOML value (or a flag's, already typed) -> the setting
    default: Any
    help: str
    flag_type: Callable[[str], Any] | None = str  # None: a switch (store_true/false)
    repeat: bool = False  # the flag may be given several times (a list)

    @property
    def flag(self) -> str:
        """The key with dashes: `tls.cert` is --tls-cert, `base_url` is --base-url."""
        return "--" + self.key.replace(".", "-").replace("_", "-")

    @property
    def dest(self) -> str:
        return self.key.replace(".", "_")


SETTINGS: tuple[Setting, ...] = (
    Setting("host", _typed(str), "127.0.0.1", "the address to listen on"),
    Setting("port", _typed(int), 8000, "0 picks a free port", int),
    Setting(
        "db",
        _log_location,
        DEFAULT_DB,
        "the SQLite event log, or a postgresql:// URL shared by several servers",
    ),
    Setting(
        "base_url",
        _typed(str),
        None,
        "the public base URL of links (default: the listen URL), e.g. https://mafia.example.org",
    ),
    Setting(
        "room", _choice("embedded", "livekit", "none"), "embedded", "embedded | livekit | none"
    ),
    Setting("voice", _typed(bool), True, "the host speaks (--no-voice: silent)", None),
    Setting(
        "speech.engine",
        _choice("auto", "rhvoice", "espeak"),
        "auto",
        "auto (RHVoice where installed, else espeak-ng) | rhvoice | espeak",
    ),
    *(
        Setting(
            f"speech.rhvoice_{lang}",
            _rhvoice_voice(lang),
            None,
            f"the RHVoice voice for {lang} (default: config/phrases/{lang}.toml; docs/voice.md)",
        )
        for lang in ("ru", "uk", "en")
    ),
    Setting(
        "admin_key_file",
        _path,
        None,
        "a file holding the admin key (default: $AUTOHOST_ADMIN_KEY or the file "
        "<db>.admin-key, created once); never the key itself, which every local user "
        "could read in the process's arguments",
    ),
    Setting("tls.cert", _path, None, "serve HTTPS: the certificate chain (PEM)"),
    Setting("tls.key", _path, None, "serve HTTPS: the private key (PEM)"),
    Setting(
        "proxy.trusted",
        _string_list,
        (),
        "a reverse proxy's address whose "
        "X-Forwarded-Proto/-For are believed (repeatable; '*' for any)",
        str,
        True,
    ),
    Setting(
        "proxy.connections_per_address",
        _typed(int),
        256,
        "connections one client address may hold at once, HTTP and WebSocket together "
        "(0: no cap); the players and spectators behind one router share it",
        int,
    ),
    Setting(
        "peers",
        _string_list,
        (),
        "another server of the club on the same database, by its public origin "
        "(https://b.club.example; repeatable): pages try it when this one does not answer",
        str,
        True,
    ),
    Setting("ice.stun", _string_list, (), "a STUN URL, stun:host:3478 (repeatable)", str, True),
    Setting(
        "ice.turn",
        _string_list,
        (),
        "a TURN URL, turn:host:3478?transport=udp (repeatable)",
        str,
        True,
    ),
    Setting(
        "ice.turn_secret_file",
        _path,
        None,
        "a file holding the TURN shared secret (coturn's static-auth-secret)",
    ),
    Setting(
        "ice.turn_secret_env",
        _typed(str),
        TURN_SECRET_ENV,
        "the environment variable holding the TURN shared secret",
    ),
    Setting(
        "ice.turn_ttl",
        _typed(int),
        DEFAULT_TURN_TTL,
        "seconds a page's TURN credentials stay valid",
        int,
    ),
    Setting(
        "ice.policy",
        _choice("all", "relay"),
        "all",
        "all | relay (every connection through TURN: tests, hiding players' addresses)",
    ),
    Setting(
        "rtc.udp_ports",
        _port_range,
        None,
        "LOW-HIGH: the UDP ports of the server's WebRTC peers (open them in the firewall)",
    ),
    Setting(
        "rtc.max_spectators",
        _typed(int),
        50,
        "spectators listening to one table at most (embedded room); more are refused",
        int,
    ),
)
BY_KEY = {setting.key: setting for setting in SETTINGS}


def read_file(path: Path) -> dict[str, Any]:
    """The settings a TOML file sets, by key; ConfigError names what is wrong."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot be read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    found: dict[str, Any] = {}
    sections = {key.split(".")[0] for key in BY_KEY if "." in key}
    for name, value in document.items():
        if name in sections and isinstance(value, dict):
            items = [(f"{name}.{sub}", subvalue) for sub, subvalue in value.items()]
        else:
            items = [(name, value)]
        for key, item in items:
            setting = BY_KEY.get(key)
            if setting is None:
                known = ", ".join(BY_KEY)
                raise ConfigError(f"{path}: unknown key {key!r} (known: {known})")
            try:
                found[key] = setting.parse(item)
            except ValueError as error:
                raise ConfigError(f"{path}: {key} must be {error}, not {item!r}") from None
    return found


def add_flags(parser: argparse.ArgumentParser) -> None:
    """A flag for every setting; each defaults to None (not given) so the file's value or
    the setting's default applies."""
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="a TOML configuration file (config/server.example.toml); flags win over it",
    )
    for setting in SETTINGS:
        if setting.flag_type is None:  # a switch: --voice / --no-voice
            parser.add_argument(
                setting.flag,
                dest=setting.dest,
                action=argparse.BooleanOptionalAction,
                default=None,
                help=setting.help,
            )
            continue
        parser.add_argument(
            setting.flag,
            dest=setting.dest,
            type=setting.flag_type,
            action="append" if setting.repeat else "store",
            default=None,
            help=setting.help,
        )


def merged(args: argparse.Namespace) -> dict[str, Any]:
    """Every setting's value: the flag's if given, else the file's, else the default."""
    from_file = read_file(args.config) if args.config is not None else {}
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        given = getattr(args, setting.dest, None)
        if given is not None:
            try:
                values[setting.key] = setting.parse(given)
            except ValueError as error:
                raise ConfigError(f"{setting.flag} must be {error}, not {given!r}") from None
        else:
            values[setting.key] = from_file.get(setting.key, setting.default)
    return values


def _secret_from(path: Path | None, env: str, what: str) -> str | None:
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError as error:
            raise ConfigError(f"{what}: cannot read {path}: {error.strerror or error}") from None
        if not text:
            raise ConfigError(f"{what}: {path} is empty")
        return text
    return os.environ.get(env) or None


def options_from(values: Mapping[str, Any]) -> ServerOptions:
    """The ServerOptions the merged settings describe (files read, secrets loaded)."""
    admin_key = (
        _secret_from(values["admin_key_file"], "", "admin_key_file")
        if values["admin_key_file"]
        else None
    )
    livekit = None
    if values["room"] == "livekit":
        from plugin.rooms.livekit.tokens import credentials_from
        from plugin.server.options import LiveKitOptions

        try:
            livekit = LiveKitOptions(credentials=credentials_from(os.environ))
        except ValueError as error:
            raise ConfigError(str(error)) from None
    turn_secret = None
    if values["ice.turn"]:
        secret_env = values["ice.turn_secret_env"]
        turn_secret = _secret_from(values["ice.turn_secret_file"], secret_env, "ice")
        if turn_secret is None:
            raise ConfigError(
                "ice.turn is set but there is no TURN shared secret: set "
                f"ice.turn_secret_file, or the environment variable {secret_env}"
            )
    try:
        ice = IceSettings(
            stun=values["ice.stun"],
            turn=values["ice.turn"],
            turn_secret=turn_secret.encode() if turn_secret else None,
            turn_ttl=values["ice.turn_ttl"],
            policy=values["ice.policy"],
        )
        options = ServerOptions(
            host=values["host"],
            port=values["port"],
            db=values["db"],
            admin_key=admin_key,
            base_url=values["base_url"].rstrip("/") if values["base_url"] else None,
            media=values["room"],
            voice=values["voice"],
            voice_engine=values["speech.engine"],
            rhvoice_voices=tuple(
                (lang, values[f"speech.rhvoice_{lang}"])
                for lang in ("ru", "uk", "en")
                if values[f"speech.rhvoice_{lang}"]
            ),
            livekit=livekit,
            tls_cert=values["tls.cert"],
            tls_key=values["tls.key"],
            trusted_proxies=tuple(values["proxy.trusted"]),
            connections_per_address=values["proxy.connections_per_address"],
            peers=tuple(peer.rstrip("/") for peer in values["peers"]),
            ice=ice,
            udp_ports=values["rtc.udp_ports"],
            max_spectators=values["rtc.max_spectators"],
        )
    except ValueError as error:
        raise ConfigError(str(error)) from None
    # Read, not just looked at: certbot's live/ folder is root-only, so a certificate in it
    # "does not exist" for the service's user, and only reading it says why.
    if options.tls_cert is not None and options.tls_key is not None:
        try:
            check_tls_files(options.tls_cert, options.tls_key)
        except TlsFilesError as error:
            raise ConfigError(str(error)) from None
    return options
