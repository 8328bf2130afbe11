"""Fixtures for the voice: real espeak-ng (skipped, naming the Debian package, if absent)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest

from plugin.testing import eventually
from voice.phrases import ANNOUNCEMENTS, SAMPLE_PARAMS, Catalogue
from voice.synth import EspeakMissing, Synthesizer, require_espeak

LANGUAGES = ("ru", "uk", "en")
TABLE = range(1, 11)


def sample(key: str) -> dict[str, object]:
    return {name: SAMPLE_PARAMS[name] for name in ANNOUNCEMENTS[key]}


@pytest.fixture(scope="session")
def espeak() -> None:
    try:
        require_espeak()
    except EspeakMissing as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def prerendered(espeak: None, tmp_path_factory: pytest.TempPathFactory) -> Synthesizer:
    """One synthesizer, its cache filled for a 10-seat table in every language."""
    synth = Synthesizer(tmp_path_factory.mktemp("voice-cache"))
    for lang in LANGUAGES:
        synth.prerender(Catalogue.load(lang), TABLE)
    return synth


@pytest.fixture
def fresh(espeak: None, tmp_path: Path) -> Synthesizer:
    """A synthesizer with an empty cache of its own."""
    return Synthesizer(tmp_path / "voice")


# Wait for a condition the frame clock brings about (looked at every 5 ms, a quarter of a
# frame); fail if it never holds.
until = partial(eventually, seconds=10.0, interval=0.005)


def voiced(frame: np.ndarray, level: int = 200) -> bool:
    return bool(np.abs(frame.astype(np.int32)).max() > level)
