"""Voice packs: a club's own recordings of the host's phrases, one WAV file per fragment.

A pack is a folder (by default `config/voices/<name>/`, or `$AUTOHOST_VOICES/<name>/`):

    config/voices/club-anna/
        pack.toml            # lang = "uk"   (optional: title, speaker, notes)
        vote.call.1.wav      # "Хто за те, щоб нашу гру покинув"
        seat.nom.7.wav       # "гравець номер сім"
        ...
        script.csv           # optional: `autohost voice script --format csv`, as recorded

With `script.csv`, a recording whose words the catalogue has changed since is reported by
`check` and synthesised at the table instead of saying the old words.

Each file is named after a fragment key of the catalogue (voice.phrases.Fragment; the list
is `autohost voice script --lang uk`). A WAV may have any sample rate (8..192 kHz), one or
two channels and 16- or 24-bit PCM samples; it is mixed to mono, resampled to 48 kHz and
trimmed of its silence, like a synthesised chunk, and cached on disk next to them. A table
speaks every fragment its pack has and synthesises the rest (voice.speech).
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import re
import struct
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from plugin import paths

from . import audio
from .phrases import SCRIPT_SEATS, Catalogue, CatalogueError, ScriptLine
from .synth import read_pcm, write_pcm

log = logging.getLogger(__name__)

MANIFEST = "pack.toml"
SCRIPT = "script.csv"  # the words as they were recorded (voice script --format csv)
MANIFEST_FIELDS = ("lang", "title", "speaker", "notes")
# Bump when reading, mixing, resampling or trimming recordings changes (cache key).
PIPELINE_VERSION = 1
MIN_RATE, MAX_RATE = 8_000, 192_000
MAX_SECONDS = 20.0  # longer than any phrase: most likely the wrong file
# A pack's name is one folder name: no separators, no "..", nothing hidden.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")

_FORMATS = {1: "PCM", 3: "32-bit float", 6: "A-law", 7: "µ-law", 0x55: "MP3", 2: "ADPCM"}
_EXTENSIBLE = 0xFFFE


class PackError(ValueError):
    """Not a usable voice pack: a bad name, no such folder, no or a bad pack.toml, or a
    pack in another language than the table's."""


class RecordingError(ValueError):
    """A WAV file that cannot be used; the message says why and what to do."""


def packs_dir() -> Path:
    """Where packs are looked up by name: $AUTOHOST_VOICES, else config/voices."""
    return Path(os.environ.get("AUTOHOST_VOICES", paths.CONFIG_DIR / "voices"))


def file_name(key: str) -> str:
    """The WAV file a fragment is recorded in."""
    return f"{key}.wav"


def check_name(name: str) -> str:
    """`name` if it can name a pack's folder; PackError otherwise."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise PackError(
            f"voice pack name {name!r} must be one folder name (letters, digits, '-', '_'; "
            f"no '/', '\\' or '..'), e.g. 'club-anna'"
        )
    return name


def find(name: str, lang: str | None = None, *, directory: Path | None = None) -> VoicePack:
    """The pack called `name` in the packs directory, checked to speak `lang` if given."""
    folder = (packs_dir() if directory is None else Path(directory)) / check_name(name)
    if not folder.is_dir():
        have = ", ".join(available(folder.parent)) or "none"
        raise PackError(f"no voice pack {name!r} in {folder.parent} (have: {have})")
    pack = VoicePack.open(folder)
    if lang is not None and pack.lang != lang:
        raise PackError(
            f"voice pack {name!r} is recorded in {pack.lang!r}, but the table speaks {lang!r}"
        )
    return pack


def available(directory: Path | None = None) -> list[str]:
    """The names of the packs (folders with a pack.toml) in the packs directory."""
    folder = packs_dir() if directory is None else Path(directory)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / MANIFEST).is_file())


class VoicePack:
    """One pack's recordings: which fragments it has, each read and converted once.

    `has(key)` says whether a fragment can come from the pack (a file that proved
    unusable when loaded no longer counts); `load(keys)` converts them (disk cache
    first) into the memory cache that `cached(key)` reads without touching the disk.
    """

    def __init__(
        self,
        folder: Path,
        *,
        lang: str,
        title: str,
        files: dict[str, Path],
        cache_dir: Path,
        words: dict[str, str] | None = None,
    ) -> None:
        self.path = folder
        self.lang = lang
        self.title = title
        self.files = files
        self.words = words or {}  # key -> the words recorded (from script.csv)
        self.cache_dir = cache_dir
        self.unusable: dict[str, str] = {}  # key -> why, found while loading
        self.loads = 0  # recordings converted from their WAV (not from the cache)
        self._memory: dict[str, np.ndarray] = {}

    @classmethod
    def open(cls, folder: Path, *, cache_dir: Path | None = None) -> VoicePack:
        """Read a pack's manifest and list its WAV files; PackError if it is not a pack."""
        folder = Path(folder)
        if not folder.is_dir():
            raise PackError(f"{folder} is not a folder")
        manifest = folder / MANIFEST
        if not manifest.is_file():
            raise PackError(
                f"{folder} is not a voice pack: it has no {MANIFEST} "
                f'(one line names its language, e.g. lang = "uk")'
            )
        try:
            doc = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise PackError(f"{manifest}: {exc}") from None
        unknown = sorted(set(doc) - set(MANIFEST_FIELDS))
        if unknown:
            raise PackError(f"{manifest}: unknown fields {unknown} (known: {MANIFEST_FIELDS})")
        lang = doc.get("lang")
        if not isinstance(lang, str):
            raise PackError(f'{manifest}: needs lang = "<language>", e.g. lang = "uk"')
        try:
            Catalogue.load(lang)
        except CatalogueError as exc:
            raise PackError(f"{manifest}: lang {lang!r}: {exc}") from None
        title = doc.get("title", folder.name)
        if not all(isinstance(doc.get(f, ""), str) for f in MANIFEST_FIELDS):
            raise PackError(f"{manifest}: {', '.join(MANIFEST_FIELDS)} must be text")
        files = {
            p.name[: -len(".wav")]: p
            for p in sorted(folder.iterdir())
            if p.name.lower().endswith(".wav") and p.is_file()
        }
        cache = paths.CACHE_DIR / "voice" if cache_dir is None else Path(cache_dir)
        words = _read_script(folder / SCRIPT)
        return cls(folder, lang=lang, title=str(title), files=files, cache_dir=cache, words=words)

    def has(self, key: str | None) -> bool:
        """Whether fragment `key` can be said from a recording of this pack."""
        return key is not None and key in self.files and key not in self.unusable

    def says(self, key: str | None, reading: str) -> bool:
        """Whether fragment `key` with these words can be said from a recording: the pack
        has a usable one, and script.csv (if any) says it was recorded with these words."""
        return self.has(key) and self.words.get(key or "", reading) == reading

    def cached(self, key: str | None) -> np.ndarray | None:
        """The converted recording if it is in memory (never touches the disk)."""
        return None if key is None else self._memory.get(key)

    def load(self, keys: Iterable[str]) -> int:
        """Convert each recording not in memory yet (from the disk cache when it has it);
        a file that cannot be used is logged and left to synthesis. Blocks; any thread."""
        loaded = 0
        for key in keys:
            if not self.has(key) or key in self._memory:
                continue
            try:
                pcm = self._convert(key)
            except RecordingError as exc:
                self.unusable[key] = str(exc)
                log.warning("voice pack %s: %s: %s (synthesised instead)", self.path, key, exc)
                continue
            pcm.flags.writeable = False
            self._memory[key] = pcm
            loaded += 1
        return loaded

    def _convert(self, key: str) -> np.ndarray:
        path = self.files[key]
        try:
            stat = path.stat()
        except OSError as exc:
            raise RecordingError(f"cannot read {path.name}: {exc.strerror}") from None
        material = json.dumps(
            ["pack", str(path.resolve()), stat.st_size, stat.st_mtime_ns, PIPELINE_VERSION,
             audio.SAMPLE_RATE],
        )  # fmt: skip
        cached = self.cache_dir / f"rec-{hashlib.sha256(material.encode()).hexdigest()[:40]}.pcm"
        pcm = read_pcm(cached)
        if pcm is None:
            pcm = read_recording(path)
            self.loads += 1
            write_pcm(cached, pcm)
        return pcm


def _read_script(path: Path) -> dict[str, str]:
    """key -> words from a pack's script.csv (none if the pack has no such file)."""
    if not path.is_file():
        return {}
    try:
        rows = list(csv.DictReader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise PackError(f"{path}: {exc}") from None
    if rows and not {"file", "text"} <= rows[0].keys():
        raise PackError(
            f"{path}: needs the columns file and text "
            "(save it with: autohost voice script --lang L --format csv)"
        )
    return {
        row["file"][: -len(".wav")]: row["text"]
        for row in rows
        if (row.get("file") or "").lower().endswith(".wav") and row.get("text") is not None
    }


# -- reading a recording ---------------------------------------------------------------


def read_recording(path: Path) -> np.ndarray:
    """A WAV file as the voice's own format: 48 kHz mono int16, silence trimmed.

    RecordingError names what is wrong (not a WAV, compressed, 8- or 32-bit, more than
    two channels, a rate out of range, silent, too long) and what to export instead.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise RecordingError(f"cannot read {Path(path).name}: {exc.strerror}") from None
    rate, channels, width, data = _parse_wav(raw)
    if len(data) < width * channels:
        raise RecordingError("has no audio (zero samples)")
    usable = len(data) - len(data) % (width * channels)
    if width == 2:
        samples = np.frombuffer(data[:usable], dtype="<i2").astype(np.int32)
    else:  # 24-bit: keep the top 16 bits of each little-endian sample
        triples = np.frombuffer(data[:usable], dtype=np.uint8).reshape(-1, 3).astype(np.int32)
        samples = ((triples[:, 2] << 24) | (triples[:, 1] << 16) | (triples[:, 0] << 8)) >> 16
    if channels == 2:
        samples = samples.reshape(-1, 2).sum(axis=1) // 2
    seconds = len(samples) / rate
    if seconds > MAX_SECONDS:
        raise RecordingError(
            f"is {seconds:.1f} s long (more than {MAX_SECONDS:.0f} s): one fragment per file"
        )
    pcm = audio.resample(samples.astype(np.int16), rate)
    trimmed = audio.trim(pcm)
    if audio.rms(trimmed) == 0 or np.abs(trimmed.astype(np.int32)).max() <= audio.SILENCE_LEVEL:
        raise RecordingError("is silent (nothing louder than about -44 dBFS)")
    return trimmed


def _parse_wav(raw: bytes) -> tuple[int, int, int, bytes]:
    """(rate, channels, bytes per sample, sample data) of a RIFF/WAVE file we can use."""
    if len(raw) < 12 or raw[:4] != b"RIFF" or raw[8:12] != b"WAVE":
        raise RecordingError("is not a WAV file (no RIFF/WAVE header)")
    fmt: bytes | None = None
    data: bytes | None = None
    at = 12
    while at + 8 <= len(raw):
        chunk, size = raw[at : at + 4], struct.unpack("<I", raw[at + 4 : at + 8])[0]
        body = raw[at + 8 : at + 8 + size]
        if chunk == b"fmt ":
            fmt = body
        elif chunk == b"data":
            data = body  # a truncated file keeps what it has
            break
        at += 8 + size + (size & 1)
    if fmt is None or len(fmt) < 16:
        raise RecordingError("is not a usable WAV file (no format chunk)")
    if data is None:
        raise RecordingError("is not a usable WAV file (no data chunk)")
    code, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt[:16])
    if code == _EXTENSIBLE and len(fmt) >= 26:
        code = struct.unpack("<H", fmt[24:26])[0]  # the sub-format GUID starts with it
    if code != 1:
        kind = _FORMATS.get(code, f"format {code}")
        raise RecordingError(f"is {kind}, not PCM: export it as 16-bit PCM WAV")
    if bits not in (16, 24):
        raise RecordingError(f"has {bits}-bit samples: export it as 16-bit PCM WAV")
    if channels not in (1, 2):
        raise RecordingError(f"has {channels} channels: export it as mono (or stereo)")
    if not MIN_RATE <= rate <= MAX_RATE:
        raise RecordingError(f"has a sample rate of {rate} Hz (expected {MIN_RATE}..{MAX_RATE})")
    return rate, channels, bits // 8, data


# -- what a pack lacks -----------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PackReport:
    """What `autohost voice check` says about a pack: the fragments it lacks, the files it
    cannot use (file name -> why), the recordings whose words the catalogue has changed
    since (file name -> (recorded, now)) and files that are no fragment (likely a typo)."""

    pack: VoicePack
    fragments: int
    missing: tuple[ScriptLine, ...]
    unusable: dict[str, str]
    changed: dict[str, tuple[str, str]]
    unknown: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not self.missing and not self.unusable and not self.changed


def check_pack(pack: VoicePack, seats: Iterable[int] = SCRIPT_SEATS) -> PackReport:
    """Read every recording of the pack and compare it with the script of its language."""
    catalogue = Catalogue.load(pack.lang)
    script = catalogue.script(seats)
    unusable: dict[str, str] = {}
    changed: dict[str, tuple[str, str]] = {}
    for line in script:
        if line.key not in pack.files:
            continue
        name = pack.files[line.key].name
        try:
            read_recording(pack.files[line.key])
        except RecordingError as exc:
            unusable[name] = str(exc)
        if not pack.says(line.key, line.reading) and line.key in pack.words:
            changed[name] = (pack.words[line.key], line.reading)
    everything = {line.key for line in catalogue.script(SCRIPT_SEATS)}
    return PackReport(
        pack=pack,
        fragments=len(script),
        missing=tuple(line for line in script if line.key not in pack.files),
        unusable=unusable,
        changed=changed,
        unknown=tuple(pack.files[k].name for k in sorted(pack.files.keys() - everything)),
    )
