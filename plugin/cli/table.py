"""`autohost table new`: create a table and print each seat's link and the host's link.

    autohost table new --preset online --lang uk --seats 10 --names "A,B,..."
                       [--voice-pack NAME] [--voice-engine auto|rhvoice|espeak]
                       [--voice-name NAME] [--livekit-room NAME] [--db var/autohost.db]
                       [--base-url URL] [--server URL [--admin-key-file F] [--ca-file PEM]]
                       [--json]

Without --server the table is written straight into the event log at --db (the server
opens it on first use); with --server it is created over HTTP (POST /api/tables), trusting
the system's certificate authorities and the one in --ca-file.
"""

from __future__ import annotations

import argparse
import json
import ssl
import sys
from pathlib import Path
from typing import Any

DEFAULT_DB = Path("var/autohost.db")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autohost table")
    commands = parser.add_subparsers(dest="command", required=True)
    new = commands.add_parser("new", help="create a table")
    new.add_argument("--preset", default="online")
    new.add_argument("--lang", default="uk")
    new.add_argument("--seats", type=int, default=10)
    new.add_argument("--names", default="", help="comma-separated, one per seat")
    new.add_argument("--manual", action="store_true", help="the live host decides")
    new.add_argument("--club", default="", help="the club's name, on the protocol sheet")
    new.add_argument("--host-name", default="", help="the live host's name, on the sheet")
    new.add_argument("--seed", type=int, default=None)
    new.add_argument("--voice-pack", default=None, help="a recorded voice in config/voices")
    new.add_argument("--voice-engine", default=None, choices=("auto", "rhvoice", "espeak"),
                     help="the table's speech engine (default: the server's)")  # fmt: skip
    new.add_argument("--voice-name", default=None,
                     help="the table's RHVoice voice, e.g. anatol (docs/voice.md)")  # fmt: skip
    new.add_argument("--livekit-room", default=None, help="LiveKit mode: a club's room "
                     "(default: autohost-<table id>)")  # fmt: skip
    new.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="RULE=VALUE",
        help="override a rule of the preset (value read as JSON, else text); repeatable",
    )
    new.add_argument("--db", default=str(DEFAULT_DB), help="a SQLite file or postgresql:// URL")
    new.add_argument("--base-url", default="http://127.0.0.1:8000")
    new.add_argument("--server", default=None, help="create through a running server")
    new.add_argument(
        "--admin-key-file",
        type=Path,
        default=None,
        help="with --server; default: $AUTOHOST_ADMIN_KEY or <db>.admin-key",
    )
    new.add_argument(
        "--ca-file",
        type=Path,
        default=None,
        help="with --server: trust the certificate authority in this PEM file (a private "
        "CA, or Caddy's `tls internal` root) besides the system's",
    )
    new.add_argument("--json", action="store_true", help="print the answer as JSON")
    return parser.parse_args(argv)


def settings_record(args: argparse.Namespace) -> dict[str, Any]:
    record: dict[str, Any] = {
        "preset": args.preset,
        "language": args.lang,
        "seats": args.seats,
        "names": [n.strip() for n in args.names.split(",")] if args.names else [],
        "manual": args.manual,
    }
    if args.club:
        record["club"] = args.club
    if args.host_name:
        record["host_name"] = args.host_name
    if args.seed is not None:
        record["seed"] = args.seed
    if args.voice_pack is not None:
        record["voice_pack"] = args.voice_pack
    if args.voice_engine is not None:
        record["voice_engine"] = args.voice_engine
    if args.voice_name is not None:
        record["voice_name"] = args.voice_name
    if args.livekit_room is not None:
        record["livekit_room"] = args.livekit_room
    overrides: dict[str, Any] = {}
    for item in args.set:
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise ValueError(f"--set {item!r}: expected RULE=VALUE")
        try:
            overrides[key] = json.loads(value)
        except ValueError:
            overrides[key] = value
    if overrides:
        record["overrides"] = overrides
    return record


def create_remote(args: argparse.Namespace, record: dict[str, Any]) -> dict[str, Any]:
    import httpx

    from plugin.signing import load_admin_key, read_admin_key_file

    given = read_admin_key_file(args.admin_key_file) if args.admin_key_file else None
    key = load_admin_key(_files(args.db), given)
    verify: ssl.SSLContext | bool = True
    if args.ca_file is not None:
        verify = ssl.create_default_context()
        try:
            verify.load_verify_locations(cafile=args.ca_file)
        except (OSError, ssl.SSLError) as error:
            raise ValueError(
                f"--ca-file {args.ca_file}: not a readable PEM file ({error})"
            ) from None
    try:
        answer = httpx.post(
            args.server.rstrip("/") + "/api/tables",
            json=record,
            headers={"Authorization": f"Bearer {key}"},
            timeout=10,
            verify=verify,
        )
        body = answer.json()
    except (httpx.HTTPError, ValueError) as error:
        hint = ""
        if "CERTIFICATE_VERIFY_FAILED" in str(error):
            hint = " (a server with a private CA's certificate: --ca-file CA.pem)"
        raise ValueError(f"no answer from {args.server}: {error}{hint}") from None
    if answer.status_code != 201:
        raise ValueError(f"{body.get('error')}: {body.get('message')}")
    return body  # type: ignore[no-any-return]


def create_local(args: argparse.Namespace, record: dict[str, Any]) -> dict[str, Any]:
    from plugin.eventlog import open_log
    from plugin.host.game import check_settings
    from plugin.host.registry import new_table_id
    from plugin.host.settings import TableSettings
    from plugin.signing import Signer, load_secret, secret_path_for, table_links

    settings = TableSettings.from_record(record)
    check_settings(settings)
    if settings.voice_pack is not None:  # the pack must exist and speak the table's language
        from voice.pack import find

        find(settings.voice_pack, settings.language)  # PackError is a ValueError
    if settings.voice_name is not None:  # a freely licensed voice of the table's language
        from voice.engines import check_rhvoice_voice

        check_rhvoice_voice(settings.voice_name, settings.language)  # a ValueError
    log = open_log(args.db)  # on PostgreSQL: no lease, the first server to want it claims it
    try:
        # The links expire by the log's clock, as every server of the log checks them.
        signer = Signer(load_secret(secret_path_for(_files(args.db))), clock=log.wall)
        table_id = new_table_id()
        log.create_table(table_id, settings.to_record())
        names = [settings.name_of(s) for s in range(1, settings.seats + 1)]
        return table_links(signer, args.base_url, table_id, settings.seats, names=names)
    finally:
        log.close()


def _files(db: str) -> Path:
    """Where the secret and admin key of the servers on this log live (plugin.server)."""
    from plugin.eventlog import is_url
    from plugin.server.assembly import POSTGRES_FILES

    return POSTGRES_FILES if is_url(db) else Path(db)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        record = settings_record(args)
        answer = create_remote(args, record) if args.server else create_local(args, record)
    except ValueError as error:  # SettingsError is a ValueError
        print(f"autohost table new: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(answer, ensure_ascii=False, indent=2))
        return 0
    print(f"table {answer['id']}")
    print(f"host:    {answer['host']['link']}")
    if "invite" in answer:  # one link for every player: the lobby, the host seats them
        print(f"invite:  {answer['invite']['link']}")
    for seat in answer["seats"]:
        print(f"seat {seat['seat']:>2} {seat['name']}: {seat['link']}")
    if "watch" in answer:  # one link for any number of spectators, and the OBS overlay
        print(f"watch:   {answer['watch']['link']}")
        print(f"overlay: {answer['watch']['overlay']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
