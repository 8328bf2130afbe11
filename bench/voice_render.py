"""Cold rendering time per phrase with each installed engine (RHVoice, espeak-ng).

    .venv/bin/python bench/voice_render.py [--langs ru,uk,en] [--rounds 1]

Every announcement of each catalogue, with sample seats and params, is rendered with empty
caches (a fresh cache folder per phrase, the memory cache emptied): what a phrase costs
when it was not prerendered. Each voice says one phrase first, untimed (RHVoice loads a
voice's data on its first phrase). Also the time to prerender a whole 10-seat table (every
chunk it can need), the work done before its game starts. Real engines, one worker thread.
The last line is one JSON object: voice_cold_render_ms_{engine} (median per phrase, all
languages), voice_cold_render_p90_ms_{engine}, voice_table_prerender_s_{engine} (uk).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testing import percentile
from voice.engines import ENGINES, RHVOICE, choose
from voice.phrases import ANNOUNCEMENT_KEYS, ANNOUNCEMENTS, SAMPLE_PARAMS, Catalogue
from voice.synth import Synthesizer, espeak_missing, rhvoice_engine

SEATS = range(1, 11)


def installed() -> list[str]:
    """The engines that load here."""
    return [
        e
        for e in ENGINES
        if (e == RHVOICE and not isinstance(rhvoice_engine(), Exception))
        or (e != RHVOICE and espeak_missing() is None)
    ]


def cold_ms(engine: str, langs: list[str], rounds: int, scratch: Path) -> list[float]:
    """Milliseconds per phrase, each rendered with empty caches."""
    times: list[float] = []
    for lang in langs:
        catalogue = choose(Catalogue.load(lang), engine)
        Synthesizer(scratch / f"warm-{engine}-{lang}").phrase(catalogue, "night", {})
        for r in range(rounds):
            for i, key in enumerate(ANNOUNCEMENT_KEYS):
                params = {name: SAMPLE_PARAMS[name] for name in ANNOUNCEMENTS[key]}
                synth = Synthesizer(scratch / f"{engine}-{lang}-{r}-{i}")
                start = time.perf_counter()
                synth.phrase(catalogue, key, params)
                times.append((time.perf_counter() - start) * 1000)
    return times


def prerender_s(engine: str, lang: str, scratch: Path) -> float:
    """Seconds to render every chunk a 10-seat table can need, from empty caches."""
    catalogue = choose(Catalogue.load(lang), engine)
    synth = Synthesizer(scratch / f"table-{engine}-{lang}")
    start = time.perf_counter()
    synth.prerender(catalogue, SEATS)
    return time.perf_counter() - start


def main(langs: list[str], rounds: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="voice-render-") as tmp:
        scratch = Path(tmp)
        for engine in installed():
            times = cold_ms(engine, langs, rounds, scratch)
            figures[f"voice_cold_render_ms_{engine}"] = round(statistics.median(times), 1)
            figures[f"voice_cold_render_p90_ms_{engine}"] = round(percentile(times, 0.9), 1)
            figures[f"voice_table_prerender_s_{engine}"] = round(
                prerender_s(engine, "uk", scratch), 2
            )
            print(
                f"{engine}: {len(times)} phrases cold, median "
                f"{figures[f'voice_cold_render_ms_{engine}']} ms, p90 "
                f"{figures[f'voice_cold_render_p90_ms_{engine}']} ms; a 10-seat uk table "
                f"prerenders in {figures[f'voice_table_prerender_s_{engine}']} s",
                file=sys.stderr,
            )
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", default="ru,uk,en")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(main(args.langs.split(","), args.rounds)))
