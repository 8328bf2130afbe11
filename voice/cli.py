"""`autohost say` (one announcement to a WAV file), `autohost phrases` (check catalogues)
and `autohost voice` (a club's own recorded voice).

    autohost say --lang uk vote.call seat=7 --out call.wav [--pack club-anna]
    autohost say --lang ru tie.revote seats=2,5 --out revote.wav [--engine rhvoice|espeak]
    autohost voice list [--json]        # every installed engine, its voice per language
    autohost phrases --check            # every key, every language, every placeholder
    autohost phrases --show --lang en   # every phrase as it will be said
    autohost voice script --lang uk [--format text|csv|json] [--seats 12]
    autohost voice check PACK [--seats 12]    # PACK: a folder, or a name in config/voices

Exit codes: 0 done; 1 a gap in a catalogue (phrases), an incomplete pack (voice check) or
the engine missing/failing (say); 2 bad input (unknown key, bad param, unknown language, a
folder that is not a voice pack), with one line on stderr.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import wave
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .phrases import (
    ANNOUNCEMENT_KEYS,
    ANNOUNCEMENTS,
    PARAM_KINDS,
    SAMPLE_PARAMS,
    SCRIPT_SEATS,
    SEATS,
    Catalogue,
    CatalogueError,
    PhraseError,
    languages,
)

if TYPE_CHECKING:
    from .pack import PackReport, VoicePack

REQUIRED_LANGUAGES = ("ru", "uk", "en")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def _params(key: str, pairs: list[str]) -> dict[str, Any]:
    """`seat=7 seats=2,5` -> {"seat": 7, "seats": [2, 5]}; PhraseError if malformed."""
    if key not in ANNOUNCEMENTS:
        raise PhraseError(f"unknown phrase key {key!r}")
    params: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise PhraseError(f"expected name=value, got {pair!r}")
        if name not in ANNOUNCEMENTS[key]:
            takes = ", ".join(ANNOUNCEMENTS[key]) or "no params"
            raise PhraseError(f"phrase {key!r} has no param {name!r} (it takes: {takes})")
        items = value.split(",") if PARAM_KINDS[name] == SEATS else [value]
        try:
            numbers = [int(item) for item in items]
        except ValueError:
            raise PhraseError(
                f"param {name!r} must be a number{'s' * (len(items) > 1)}, got {value!r}"
            ) from None
        params[name] = numbers if PARAM_KINDS[name] == SEATS else numbers[0]
    return params


def say_main(argv: list[str]) -> int:
    parser = _Parser(prog="autohost say", description="Render one announcement to a WAV file.")
    parser.add_argument("key", help="phrase key, e.g. vote.call")
    parser.add_argument("params", nargs="*", help="name=value, e.g. seat=7 or seats=2,5")
    parser.add_argument("--lang", default="ru", help="catalogue language (default ru)")
    parser.add_argument("--out", required=True, type=Path, help="WAV file to write")
    parser.add_argument("--dir", type=Path, help="catalogue folder (default config/phrases)")
    parser.add_argument("--pack", help="say what it has from this voice pack (name or folder)")
    parser.add_argument(
        "--engine",
        choices=("rhvoice", "espeak"),
        help="synthesis engine (default: the configured one, RHVoice where installed)",
    )
    parser.add_argument("--voice", help="RHVoice voice (default: the language's, see voice list)")
    args = parser.parse_args(argv)
    from .engines import VoiceChoiceError, choose
    from .pack import PackError

    pack: VoicePack | None = None
    try:
        catalogue = Catalogue.load(args.lang, args.dir)
        params = _params(args.key, args.params)
        text = catalogue.text(args.key, params)
        if args.pack:
            pack = _open_pack(args.pack)
            if pack.lang != args.lang:
                raise PackError(f"voice pack {args.pack!r} is in {pack.lang!r}, not {args.lang!r}")
    except (PhraseError, CatalogueError, PackError) as exc:
        parser.error(str(exc))
    from .rhvoice import RHVoiceMissing
    from .speech import Speech
    from .synth import EspeakMissing, SynthesisError, default_synthesizer

    try:
        catalogue = choose(catalogue, args.engine, args.voice)
    except VoiceChoiceError as exc:
        parser.error(str(exc))
    except RHVoiceMissing as exc:
        print(f"autohost say: {exc}", file=sys.stderr)
        return 1
    try:
        pcm = Speech(catalogue, default_synthesizer(), pack).phrase(args.key, params)
    except (EspeakMissing, RHVoiceMissing, SynthesisError) as exc:
        print(f"autohost say: {exc}", file=sys.stderr)
        return 1
    from .audio import SAMPLE_RATE

    try:
        with wave.open(str(args.out), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(SAMPLE_RATE)
            wav.writeframes(pcm.astype("<i2").tobytes())
    except OSError as exc:
        print(f"autohost say: cannot write {args.out}: {exc}", file=sys.stderr)
        return 1
    voice = catalogue.voice
    seconds = len(pcm) / SAMPLE_RATE
    print(f"{args.out}: {seconds:.2f} s, 48 kHz mono, {voice.engine} {voice.name}: {text}")
    return 0


def phrases_main(argv: list[str]) -> int:
    parser = _Parser(prog="autohost phrases", description="Check the phrase catalogues.")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="every key and placeholder (default)")
    action.add_argument("--show", action="store_true", help="print every phrase with sample params")
    parser.add_argument("--dir", type=Path, help="catalogue folder (default config/phrases)")
    parser.add_argument("--lang", action="append", help="only this language (repeatable)")
    args = parser.parse_args(argv)
    wanted = args.lang or sorted({*REQUIRED_LANGUAGES, *languages(args.dir)})
    problems: list[str] = []
    catalogues: list[Catalogue] = []
    for lang in wanted:
        try:
            catalogues.append(Catalogue.load(lang, args.dir))
        except CatalogueError as exc:
            problems.append(f"{lang}: {exc}")
    if args.show:
        for catalogue in catalogues:
            for key in ANNOUNCEMENT_KEYS:
                params = {name: SAMPLE_PARAMS[name] for name in ANNOUNCEMENTS[key]}
                try:
                    line = catalogue.text(key, params)
                except PhraseError as exc:
                    line = f"!! {exc}"
                print(f"{catalogue.lang}  {key:<22} {line}")
        return 0
    for catalogue in catalogues:
        problems += catalogue.problems()
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        print(f"phrases: {len(problems)} gap(s) in {', '.join(wanted)}", file=sys.stderr)
        return 1
    print(
        f"phrases: ok: {len(catalogues)} languages ({', '.join(wanted)}), "
        f"{len(ANNOUNCEMENT_KEYS)} keys each, every placeholder filled"
    )
    return 0


def voice_main(argv: list[str]) -> int:
    parser = _Parser(
        prog="autohost voice", description="The host's voice: engines, and a club's recordings."
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    script = commands.add_parser("script", help="every fragment to record, with its file name")
    script.add_argument("--lang", required=True, help="the pack's language (ru, uk, en)")
    script.add_argument("--format", choices=("text", "csv", "json"), default="text")
    check = commands.add_parser("check", help="what a pack lacks, and what it cannot use")
    check.add_argument("pack", help="a pack's folder, or its name in the packs directory")
    listing = commands.add_parser("list", help="every installed engine and its voice per language")
    listing.add_argument("--json", action="store_true", help="a JSON list of objects")
    for sub in (script, check):
        sub.add_argument(
            "--seats", type=int, default=max(SCRIPT_SEATS), help="largest table (default 12)"
        )
    args = parser.parse_args(argv)
    if args.command == "list":
        return _print_voices(args.json)
    if not 1 <= args.seats <= max(SCRIPT_SEATS):
        parser.error(f"--seats must be 1..{max(SCRIPT_SEATS)}, not {args.seats}")
    if args.command == "script":
        try:
            catalogue = Catalogue.load(args.lang)
        except CatalogueError as exc:
            parser.error(str(exc))
        try:
            _print_script(catalogue, args.seats, args.format)
        except BrokenPipeError:  # `| head`: the reader has what it wanted
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (so the exit flush is quiet)
        return 0
    from .pack import PackError, check_pack

    try:
        report = check_pack(_open_pack(args.pack), range(1, args.seats + 1))
    except PackError as exc:
        parser.error(str(exc))
    return _print_report(report)


def _print_voices(as_json: bool) -> int:
    """`voice list`: one row per installed engine and language; 1 if no engine is."""
    from .engines import listing

    catalogues = [Catalogue.load(lang) for lang in sorted({*REQUIRED_LANGUAGES, *languages()})]
    rows = listing(catalogues)
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            mark = "*" if row["default"] else " "
            print(f"{mark} {row['engine']:<8} {row['lang']:<4} {row['voice']:<14} {row['licence']}")
        if rows:
            print("* the default engine")
    if not rows:
        print("voice list: no speech engine is installed (RHVoice or espeak-ng)", file=sys.stderr)
        return 1
    return 0


def _open_pack(arg: str) -> VoicePack:
    """A pack from a folder path, or else from a name in the packs directory."""
    from .pack import NAME, VoicePack, find

    folder = Path(arg)
    if not folder.is_dir() and NAME.fullmatch(arg):
        return find(arg)
    return VoicePack.open(folder)


def _print_script(catalogue: Catalogue, seats: int, form: str) -> None:
    from .pack import file_name

    lines = catalogue.script(range(1, seats + 1))
    rows = [
        {
            "file": file_name(line.key),
            "key": line.key,
            "text": line.reading,
            "used_in": list(line.used_in),
            "example": line.example,
        }
        for line in lines
    ]
    if form == "json":
        doc = {"lang": catalogue.lang, "seats": seats, "fragments": rows}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    elif form == "csv":
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(["file", "text", "used_in", "example"])
        for row in rows:
            out.writerow([row["file"], row["text"], " ".join(row["used_in"]), row["example"]])
    else:
        width = max(len(row["file"]) for row in rows) + 2
        print(f"# Voice script, {catalogue.lang}: {len(rows)} fragments, tables up to {seats}.")
        print("# Record each line into the file on its left (WAV: 16- or 24-bit PCM, mono or")
        print("# stereo, any rate), read as inside a whole phrase. The folder needs pack.toml")
        print(
            f'# with lang = "{catalogue.lang}". Keep this script in it as script.csv (--format csv)'
        )
        print("# so that check flags words the catalogue changes later. Then: voice check FOLDER")
        for row in rows:
            print(f"{row['file']:<{width}}{row['text']}")


def _print_report(report: PackReport) -> int:
    pack = report.pack
    have = report.fragments - len(report.missing)
    print(f"voice pack {pack.path} ({pack.lang}): {have} of {report.fragments} fragments recorded")
    for line in report.missing:
        print(f"missing   {line.key + '.wav':<24} {line.reading}")
    for name, why in report.unusable.items():
        print(f"unusable  {name:<24} {why}")
    for name, (recorded, now) in report.changed.items():
        print(f"changed   {name:<24} recorded as {recorded!r}, the catalogue now says {now!r}")
    for name in report.unknown:
        print(f"unknown   {name:<24} no such fragment (autohost voice script --lang {pack.lang})")
    if report.complete:
        print("complete: every fragment is recorded and usable")
        return 0
    print(
        f"incomplete: {len(report.missing)} missing, {len(report.unusable)} unusable, "
        f"{len(report.changed)} changed"
    )
    return 1
