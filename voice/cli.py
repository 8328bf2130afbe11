"""`autohost say` (one announcement to a WAV file) and `autohost phrases` (check catalogues).

    autohost say --lang uk vote.call seat=7 --out call.wav
    autohost say --lang ru tie.revote seats=2,5 --out revote.wav
    autohost phrases --check            # every key, every language, every placeholder
    autohost phrases --show --lang en   # every phrase as it will be said

Exit codes: 0 done; 1 a gap in a catalogue (phrases) or espeak-ng missing/failing (say);
2 bad input (unknown key, bad param, unknown language), with one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
import wave
from pathlib import Path
from typing import Any, NoReturn

from .phrases import (
    ANNOUNCEMENT_KEYS,
    ANNOUNCEMENTS,
    PARAM_KINDS,
    SAMPLE_PARAMS,
    SEATS,
    Catalogue,
    CatalogueError,
    PhraseError,
    languages,
)

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
    args = parser.parse_args(argv)
    try:
        catalogue = Catalogue.load(args.lang, args.dir)
        params = _params(args.key, args.params)
        text = catalogue.text(args.key, params)
    except (PhraseError, CatalogueError) as exc:
        parser.error(str(exc))
    from .synth import EspeakMissing, SynthesisError, default_synthesizer

    try:
        pcm = default_synthesizer().phrase(catalogue, args.key, params)
    except (EspeakMissing, SynthesisError) as exc:
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
    print(f"{args.out}: {len(pcm) / SAMPLE_RATE:.2f} s, 48 kHz mono: {text}")
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
