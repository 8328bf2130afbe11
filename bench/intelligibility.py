"""Is the voice understood? Every phrase of each catalogue, rendered with every installed
engine, transcribed by an offline recogniser (Whisper base, int8, CPU), scored by its
character error rate (testing.hearing: one normalisation of case, punctuation, numbers).

    .venv/bin/python bench/intelligibility.py [--langs ru,uk,en] [--quick] [--details FILE]

Each announcement key is said once per language and engine with sample parameters that
vary from key to key: one seat (numbers 1 to 12 in turn, and a player's name for every
third seat), two or three seats, a count. Each phrase is rendered cold (an empty cache,
the engine already loaded: the cost of a phrase that was not prerendered) and timed.
--quick says only the tie and vote phrases. Needs the `speech` extra (scripts/lib/setup.sh
ensure_speech_extra) and the engines (RHVoice, espeak-ng).

The last line is one JSON object: voice_cer_{lang}_{engine} (percent of characters wrong,
all phrases of the language together), voice_cer_ratio_{lang} (espeak-ng's CER over
RHVoice's), voice_seats_heard_{lang}_{engine} (percent of seat numbers recovered) and
voice_cold_render_ms_{lang}_{engine} (median per phrase).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing.hearing import Score, heard_seats, score, total_cer
from testing.recogniser import missing, recogniser
from voice import audio
from voice.engines import ENGINES, RHVOICE, choose
from voice.phrases import ANNOUNCEMENT_KEYS, ANNOUNCEMENTS, COUNT, PARAM_KINDS, SEAT, Catalogue
from voice.synth import Synthesizer, espeak_missing, rhvoice_engine

LANGS = ("ru", "uk", "en")
# A player's name, said as written (a club may seat players by name).
NAMES = {"ru": "Марина", "uk": "Тарас", "en": "Oliver"}
QUICK_KEYS = ("tie.speeches", "tie.revote", "vote.call", "vote.nobody")
EVERY_THIRD = 3


def installed() -> list[str]:
    """The engines that load here."""
    return [
        e
        for e in ENGINES
        if (e == RHVOICE and not isinstance(rhvoice_engine(), Exception))
        or (e != RHVOICE and espeak_missing() is None)
    ]


def samples(
    lang: str, keys: tuple[str, ...] = ANNOUNCEMENT_KEYS
) -> list[tuple[str, dict[str, Any]]]:
    """(key, params) for each key, the params varied from key to key (module docstring)."""

    def seat_numbers() -> Iterator[int]:
        while True:
            yield from range(1, 13)

    seats = seat_numbers()
    out: list[tuple[str, dict[str, Any]]] = []
    for i, key in enumerate(keys):
        params: dict[str, Any] = {}
        for name in ANNOUNCEMENTS[key]:
            kind = PARAM_KINDS[name]
            if kind == SEAT:
                named = name == "seat" and i % EVERY_THIRD == EVERY_THIRD - 1
                params[name] = NAMES[lang] if named else next(seats)
            elif kind == COUNT:
                params[name] = 1 + i % 4
            else:
                params[name] = sorted({next(seats) for _ in range(2 + i % 2)})
        out.append((key, params))
    return out


def numbers_in(params: dict[str, Any]) -> list[int]:
    """The seat numbers a phrase says (not counts, not names)."""
    found: list[int] = []
    for name, value in params.items():
        if PARAM_KINDS[name] == COUNT or isinstance(value, str):
            continue
        found += [value] if isinstance(value, int) else list(value)
    return found


def measure(lang: str, engine: str, keys: tuple[str, ...], scratch: Path) -> dict[str, Any]:
    """Render, time and transcribe every sample phrase of one language with one engine."""
    catalogue = choose(Catalogue.load(lang), engine)
    Synthesizer(scratch / f"warm-{engine}-{lang}").phrase(catalogue, "night", {})  # untimed
    hearer = recogniser()
    scores: list[Score] = []
    times: list[float] = []
    seats_said = seats_heard = 0
    rows = []
    for i, (key, params) in enumerate(samples(lang, keys)):
        synth = Synthesizer(scratch / f"{engine}-{lang}-{i}")
        start = time.perf_counter()
        pcm = synth.phrase(catalogue, key, params)
        times.append((time.perf_counter() - start) * 1000)
        text = catalogue.text(key, params)
        heard = hearer.transcribe(pcm, audio.SAMPLE_RATE, lang)
        judged = score(text, heard, lang)
        scores.append(judged)
        said = numbers_in(params)
        got = heard_seats(heard, said, lang)
        seats_said, seats_heard = seats_said + len(said), seats_heard + len(got)
        rows.append(
            {"key": key, "said": text, "heard": heard, "cer": round(judged.cer, 3),
             "seats": said, "seats_heard": got}
        )  # fmt: skip
    return {
        "cer": total_cer(scores),
        "seats_heard": seats_heard / seats_said if seats_said else 1.0,
        "render_ms": statistics.median(times),
        "rows": rows,
    }


def main(langs: list[str], keys: tuple[str, ...], details: Path | None) -> dict[str, float]:
    why = missing()
    if why is not None:
        raise SystemExit(f"intelligibility: {why}")
    engines = installed()
    figures: dict[str, float] = {}
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="intelligibility-") as tmp:
        for lang in langs:
            for engine in engines:
                started = time.perf_counter()
                result = measure(lang, engine, keys, Path(tmp))
                report[f"{lang}_{engine}"] = result
                figures[f"voice_cer_{lang}_{engine}"] = round(100 * result["cer"], 2)
                figures[f"voice_seats_heard_{lang}_{engine}"] = round(
                    100 * result["seats_heard"], 1
                )
                figures[f"voice_cold_render_ms_{lang}_{engine}"] = round(result["render_ms"], 1)
                print(
                    f"{lang} {engine}: CER {100 * result['cer']:.2f} %, seats heard "
                    f"{100 * result['seats_heard']:.0f} %, cold render median "
                    f"{result['render_ms']:.0f} ms ({len(result['rows'])} phrases, "
                    f"{time.perf_counter() - started:.0f} s)",
                    file=sys.stderr,
                )
                worst = sorted(result["rows"], key=lambda r: -r["cer"])[:5]
                for row in worst:
                    if row["cer"] > 0:
                        print(f"    {row['cer']:.2f}  {row['said']}  ->  {row['heard']}",
                              file=sys.stderr)  # fmt: skip
            rh, es = (
                figures.get(f"voice_cer_{lang}_rhvoice"),
                figures.get(f"voice_cer_{lang}_espeak"),
            )
            if rh is not None and es is not None:
                # RHVoice word for word would divide by zero: count it as half an error in
                # a hundred (the ratio then only says "far better").
                figures[f"voice_cer_ratio_{lang}"] = round(es / max(rh, 0.5), 1)
    if details is not None:
        details.write_text(json.dumps(report, ensure_ascii=False, indent=1))
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default=",".join(LANGS))
    parser.add_argument("--quick", action="store_true", help="the tie and vote phrases only")
    parser.add_argument("--details", type=Path, help="write every phrase and transcript here")
    args = parser.parse_args()
    chosen = QUICK_KEYS if args.quick else ANNOUNCEMENT_KEYS
    print(json.dumps(main(args.langs.split(","), chosen, args.details)))
