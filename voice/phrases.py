"""The phrase catalogue: what the host says for each announcement key, per language.

A catalogue is `config/phrases/<lang>.toml`:

    voice = "zle/ru"          # espeak-ng voice
    rate = 165                # words per minute
    numbers = "ru"            # num2words language (defaults to the file's name)

    [player]                  # how a seat is spoken, by grammatical form
    and = "и"                 # joins the last two seats of a list
    one = { nom = "игрок номер {n}", acc = "игрока номер {n}" }
    many = { nom = "игроки номер {n}", acc = "игроков номер {n}" }

    [phrases]                 # quoted keys: "night" and "night.shot" are both phrases
    "vote.call" = "Кто за то, чтобы нашу игру покинул {seat}?"

Placeholders: `{param}` or `{param:form}`. A seat (`seat`, `target`) is spoken as a
player reference in that form (default `nom`): "игрок номер семь"; a list (`seats`) as
"игроки номер два, пять и семь"; a count as a number in words. The form `n` gives the bare
number words for any param ("семь", "два и пять").

A phrase is spoken as chunks: the literal text between placeholders and each player
reference are rendered on their own, so a table's seat variants can be synthesised ahead
(see `Catalogue.chunk_texts`). `text()` is those chunks joined.

Each chunk is a `Fragment`: the text espeak-ng says (with the punctuation that closes it)
and a key naming what a club records for it in a voice pack (voice.pack): `vote.call.1` for
a phrase's first piece of text, `seat.acc.7` for "гравця номер сім", `seats.nom.2` for the
head of a list, `number.5` for a bare number, `and.8` for "і вісім". A name said as written
has no key (it is always synthesised). `Catalogue.script(seats)` lists every fragment.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from num2words import num2words  # type: ignore[import-untyped]

from plugin import paths

# What kind of value each engine param carries (plugin/rules/effects.py, Announce.params).
SEAT, SEATS, COUNT = "seat", "seats", "count"
PARAM_KINDS: dict[str, str] = {"seat": SEAT, "target": SEAT, "seats": SEATS, "count": COUNT}

# Every key the engine may announce, with the params it sends (the shared contract).
ANNOUNCEMENTS: dict[str, tuple[str, ...]] = {
    "vote.start": (),
    "vote.candidates": ("seats",),
    "vote.call": ("seat",),
    "vote.withdrawn": ("seat",),
    "vote.cancelled": ("seat",),
    "vote.nobody": (),
    "tie.speeches": ("seats",),
    "tie.revote": ("seats",),
    "tie.again": (),
    "lift.question": ("seats",),
    "lift.stay": (),
    "player.out": ("seat",),
    "last_word": ("seat",),
    "night": (),
    "night.black_meeting": (),
    "night.black_sleep": (),
    "night.don_meeting": (),
    "night.sheriff_meeting": (),
    "night.free_seating": (),
    "night.shot": (),
    "night.don_check": (),
    "night.sheriff_check": (),
    "night.sleep": (),
    "morning": (),
    "morning.killed": ("seat",),
    "morning.miss": (),
    "best_move": ("seat",),
    "speech": ("seat",),
    "defense": ("seat",),
    "speech.ten_seconds": (),
    "speech.skipped": ("seat",),
    "nomination": ("seat", "target"),
    "foul": ("seat", "count"),
    "foul.removed": ("seat",),
    "player.left": ("seat",),
    "disqualified": ("seat",),
    "win.city": (),
    "win.mafia": (),
    "win.draw": (),
    "game.paused": (),
    "game.resumed": (),
    "manual.on": (),
    "manual.off": (),
}
ANNOUNCEMENT_KEYS: tuple[str, ...] = tuple(ANNOUNCEMENTS)

# The seats of the largest table (plugin/host/settings.py MAX_SEATS): a voice script and a
# complete voice pack cover every one of them.
SCRIPT_SEATS = range(1, 13)

# Params used by `autohost phrases --check` to fill every placeholder.
SAMPLE_PARAMS: dict[str, Any] = {"seat": 7, "target": 3, "seats": [2, 5, 8], "count": 2}

NUMBER_FORM = "n"  # `{param:n}`: the number(s) in words, no noun
DEFAULT_FORM = "nom"
_PLACEHOLDER = re.compile(r"\{([^{}:]*)(?::([^{}]*))?\}")
# Punctuation that closes the chunk before it ("…номер семь?", "…номер семь, ваше слово").
_ATTACHED = re.compile(r"^[\s.,!?;:…)»—–-]+")


class PhraseError(ValueError):
    """An announcement cannot be rendered: unknown key, missing or malformed param."""


class CatalogueError(ValueError):
    """A catalogue file is missing or malformed (bad TOML, no voice, bad [player] table)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VoiceSpec:
    """Which engine and voice speak a language, and how fast: espeak-ng's `rate` is in
    words per minute, RHVoice's in percent of the voice's own speed (voice.engines)."""

    name: str
    rate: int
    engine: str = "espeak"


@dataclass(frozen=True, slots=True, kw_only=True)
class Fragment:
    """One separately spoken piece of a phrase.

    `text` is what espeak-ng says (capitalised at the start of a phrase, with the
    punctuation that closes the piece, which also sets the pause after it); `reading` is
    the same words as a volunteer records them; `key` names the recording in a voice pack
    (None for a player's name, which only synthesis can say).
    """

    key: str | None
    text: str
    reading: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptLine:
    """One fragment a voice pack can hold: its key, the words to record, and where it is
    used (the phrase keys, and one whole phrase as an example of its intonation)."""

    key: str
    reading: str
    used_in: tuple[str, ...]
    example: str


@dataclass(frozen=True, slots=True)
class _Placeholder:
    param: str
    form: str  # "" when unmarked


@dataclass(frozen=True, slots=True, kw_only=True)
class Catalogue:
    """One language's phrases. Immutable; load with `Catalogue.load(lang)`."""

    lang: str
    voice: VoiceSpec  # the voice it is said with (by default espeak-ng's, see voice.engines)
    numbers: str
    conjunction: str
    one: Mapping[str, str]
    many: Mapping[str, str]
    phrases: Mapping[str, str]
    path: Path
    # The voice each engine uses for this language by default: "espeak" from `voice` and
    # `rate`, "rhvoice" from the [rhvoice] table.
    engine_voices: Mapping[str, VoiceSpec] = field(default_factory=dict)

    @classmethod
    def load(cls, lang: str, directory: Path | None = None) -> Catalogue:
        """Read `<directory>/<lang>.toml` (default: config/phrases); CatalogueError if bad."""
        folder = paths.PHRASES_DIR if directory is None else Path(directory)
        if not re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]+)?", lang):
            raise CatalogueError(f"bad language code {lang!r} (expected e.g. 'ru', 'uk', 'en')")
        path = folder / f"{lang}.toml"
        if not path.is_file():
            have = ", ".join(languages(folder)) or "none"
            raise CatalogueError(f"no phrase catalogue for {lang!r} in {folder} (have: {have})")
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise CatalogueError(f"{path}: {exc}") from None
        voice, rate = doc.get("voice"), doc.get("rate", 170)
        if not isinstance(voice, str) or not voice:
            raise CatalogueError(f"{path}: 'voice' must name an espeak-ng voice, e.g. 'zle/ru'")
        if not isinstance(rate, int) or not 80 <= rate <= 450:
            raise CatalogueError(f"{path}: 'rate' must be words per minute in 80..450")
        espeak = VoiceSpec(name=voice, rate=rate)
        engine_voices = {"espeak": espeak}
        rhvoice = doc.get("rhvoice")
        if rhvoice is not None:
            name, speed = (
                (rhvoice.get("voice"), rhvoice.get("rate", 100))
                if isinstance(rhvoice, dict)
                else (None, None)
            )
            if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9-]*", name):
                raise CatalogueError(f"{path}: [rhvoice] voice must name an RHVoice voice")
            if not isinstance(speed, int) or not 50 <= speed <= 200:
                raise CatalogueError(f"{path}: [rhvoice] rate must be a percent in 50..200")
            engine_voices["rhvoice"] = VoiceSpec(name=name, rate=speed, engine="rhvoice")
        player = doc.get("player", {})
        one, many = player.get("one", {}), player.get("many", {})
        conjunction = player.get("and")
        for name, table in (("one", one), ("many", many)):
            if not isinstance(table, dict) or DEFAULT_FORM not in table:
                raise CatalogueError(f"{path}: [player] {name} needs at least {DEFAULT_FORM!r}")
            for form, template in table.items():
                if not isinstance(template, str) or template.count("{n}") != 1:
                    raise CatalogueError(
                        f"{path}: [player] {name}.{form} must be text with one {{n}}"
                    )
        if not isinstance(conjunction, str) or not conjunction.strip():
            raise CatalogueError(f"{path}: [player] needs 'and' (the word joining a list)")
        phrases = doc.get("phrases", {})
        if not isinstance(phrases, dict) or not all(isinstance(v, str) for v in phrases.values()):
            raise CatalogueError(f"{path}: [phrases] must map keys to text")
        return cls(
            lang=lang,
            voice=espeak,
            numbers=str(doc.get("numbers", lang)),
            conjunction=conjunction.strip(),
            one=dict(one),
            many=dict(many),
            phrases=dict(phrases),
            path=path,
            engine_voices=engine_voices,
        )

    def with_voice(self, voice: VoiceSpec) -> Catalogue:
        """The same phrases said with another voice (or engine)."""
        return dataclasses.replace(self, voice=voice)

    # -- rendering ---------------------------------------------------------------------

    def text(self, key: str, params: Mapping[str, Any] | None = None) -> str:
        """The phrase for `key` with `params` filled in, as the host says it."""
        return " ".join(self.chunks(key, params or {}))

    def chunks(self, key: str, params: Mapping[str, Any]) -> list[str]:
        """The phrase as separately synthesised pieces (literal text, player references)."""
        return [fragment.text for fragment in self.fragments(key, params)]

    def fragments(self, key: str, params: Mapping[str, Any]) -> list[Fragment]:
        """The phrase's pieces with the voice-pack key of each (`chunks` are their texts)."""
        template = self._template(key)
        pieces: list[Fragment] = []
        literal = 0
        for token in _tokens(template):
            if isinstance(token, str):
                literal += _add_literal(pieces, token, f"{key}.{literal + 1}")
                continue
            if token.param not in params:
                raise PhraseError(f"phrase {key!r} needs param {token.param!r}")
            kind = _kind(key, token.param)
            value = _checked(key, token.param, kind, params[token.param])
            pieces.extend(self._spoken(key, kind, _form(kind, token), value))
        if not pieces:
            raise PhraseError(f"phrase {key!r} in {self.lang} is empty")
        if literal == 1 and len(pieces) == 1 and pieces[0].key == f"{key}.1":
            pieces[0] = _rekeyed(pieces[0], key)  # a phrase without placeholders: its key
        first = pieces[0]
        pieces[0] = Fragment(
            key=first.key, text=first.text[:1].upper() + first.text[1:], reading=first.reading
        )
        return pieces

    def chunk_texts(self, seats: Iterable[int]) -> set[str]:
        """Every chunk any announcement can produce at a table with these seats."""
        return {fragment.text for fragment in self.chunk_fragments(seats)}

    def chunk_fragments(self, seats: Iterable[int]) -> set[Fragment]:
        """Every fragment any announcement can produce at a table with these seats.

        Each placeholder's chunks depend only on its own value and its position in a list,
        so trying each seat in each position (others at sample values) covers them all.
        """
        return {f for _, fragments in self._every_phrasing(seats) for f in fragments}

    def script(self, seats: Iterable[int]) -> list[ScriptLine]:
        """Every fragment a voice pack can record for tables with these seats, in the order
        a volunteer reads them: the phrases' text, then each player form, the bare numbers
        and the list endings. A fragment has one reading wherever it is used."""
        used: dict[str, list[str]] = {}
        reading: dict[str, str] = {}
        example: dict[str, str] = {}
        for key, fragments in self._every_phrasing(seats):
            for fragment in fragments:
                if fragment.key is None:
                    continue
                known = reading.setdefault(fragment.key, fragment.reading)
                if known != fragment.reading:  # a bug in the key scheme, never the catalogue
                    raise AssertionError(
                        f"fragment {fragment.key!r} reads {known!r} and {fragment.reading!r}"
                    )
                keys = used.setdefault(fragment.key, [])
                if key not in keys:
                    keys.append(key)
                example.setdefault(fragment.key, " ".join(f.text for f in fragments))
        return [
            ScriptLine(key=k, reading=reading[k], used_in=tuple(used[k]), example=example[k])
            for k in sorted(reading, key=_script_order)
        ]

    def _every_phrasing(self, seats: Iterable[int]) -> Iterable[tuple[str, list[Fragment]]]:
        """(key, fragments) for every key with sample params and each variant of each param."""
        seats = sorted(set(seats))
        for key in ANNOUNCEMENT_KEYS:
            if key not in self.phrases:
                continue
            names = ANNOUNCEMENTS[key]
            yield key, self.fragments(key, _samples(names))
            for name in names:
                for variant in _variants(PARAM_KINDS[name], seats):
                    yield key, self.fragments(key, {**_samples(names), name: variant})

    def problems(self) -> list[str]:
        """What stops this catalogue from voicing every announcement (empty: nothing)."""
        found = [f"{self.lang}: missing key {k!r}" for k in ANNOUNCEMENT_KEYS if k not in self]
        found += [
            f"{self.lang}: unknown key {k!r} (not announced by the engine)"
            for k in self.phrases
            if k not in ANNOUNCEMENTS
        ]
        for key in ANNOUNCEMENT_KEYS:
            if key not in self:
                continue
            try:
                for token in _tokens(self.phrases[key]):
                    if isinstance(token, _Placeholder):
                        self._check_form(key, token)
                self.text(key, _samples(ANNOUNCEMENTS[key]))
            except PhraseError as exc:
                found.append(f"{self.lang}: {exc}")
        return found

    def __contains__(self, key: object) -> bool:
        return key in self.phrases

    # -- internals ---------------------------------------------------------------------

    def _template(self, key: str) -> str:
        if key not in ANNOUNCEMENTS:
            raise PhraseError(f"unknown phrase key {key!r}")
        if key not in self.phrases:
            raise PhraseError(f"phrase {key!r} is missing from the {self.lang} catalogue")
        return self.phrases[key]

    def _check_form(self, key: str, token: _Placeholder) -> None:
        kind = _kind(key, token.param)
        forms = {NUMBER_FORM}
        if kind == SEAT:
            forms |= set(self.one)
        elif kind == SEATS:  # a list of one seat is spoken with `one`, longer with `many`
            forms |= set(self.one) & set(self.many)
        if _form(kind, token) not in forms:
            raise PhraseError(
                f"phrase {key!r}: form {token.form!r} of {{{token.param}}} is not one of "
                f"{sorted(forms)} (add it to [player] one and many)"
            )

    def _spoken(self, key: str, kind: str, form: str, value: Any) -> list[Fragment]:
        if isinstance(value, str):  # a player's name: said as written, never recorded
            return [Fragment(key=None, text=value, reading=value)]
        items = [value] if isinstance(value, int) else list(value)
        words = [num2words(item, lang=self.numbers) for item in items]
        if kind == COUNT or form == NUMBER_FORM:
            return _listed(items, words, "{n}", self.conjunction, form)
        table = self.one if len(items) == 1 else self.many
        if form not in table:
            raise PhraseError(f"phrase {key!r}: no [player] form {form!r} in {self.lang}")
        return _listed(items, words, table[form], self.conjunction, form)


def languages(directory: Path | None = None) -> list[str]:
    """The languages with a catalogue file in `directory` (default config/phrases)."""
    folder = paths.PHRASES_DIR if directory is None else Path(directory)
    return sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []


def _tokens(template: str) -> list[str | _Placeholder]:
    """Split a template into literal text and placeholders; PhraseError if malformed."""
    tokens: list[str | _Placeholder] = []
    at = 0
    for match in _PLACEHOLDER.finditer(template):
        tokens.append(template[at : match.start()])
        param, form = match.group(1).strip(), (match.group(2) or "").strip()
        if param not in PARAM_KINDS:
            raise PhraseError(f"unknown placeholder {match.group(0)} in {template!r}")
        tokens.append(_Placeholder(param, form))
        at = match.end()
    tokens.append(template[at:])
    stray = [t for t in tokens if isinstance(t, str) and ("{" in t or "}" in t)]
    if stray:
        raise PhraseError(f"unbalanced brace in {template!r}")
    return tokens


def _add_literal(pieces: list[Fragment], text: str, key: str) -> int:
    """Append literal text as fragment `key`; leading punctuation closes the previous
    fragment. Returns how many fragments it added (0 or 1)."""
    text = " ".join(text.split())
    attached = _ATTACHED.match(text)
    if attached and pieces:
        last = pieces[-1]
        pieces[-1] = Fragment(
            key=last.key, text=last.text + attached.group(0).rstrip(), reading=last.reading
        )
        text = text[attached.end() :]
    if not text.strip():
        return 0
    pieces.append(Fragment(key=key, text=text.strip(), reading=text.strip()))
    return 1


def _rekeyed(fragment: Fragment, key: str) -> Fragment:
    return Fragment(key=key, text=fragment.text, reading=fragment.reading)


def _listed(
    items: Sequence[int], words: Sequence[str], template: str, conjunction: str, form: str
) -> list[Fragment]:
    """Fragments for a list: "игроки номер два," "пять" "и семь" (template around it).

    Keys: `seat.<form>.<n>` for one seat with its noun, `seats.<form>.<n>` for the head of
    a list, `number.<n>` for bare number words, `and.<n>` for the last of a list (`and.
    <form>.<n>` when the form has words after the number)."""
    before, after = template.split("{n}")
    noun = f".{form}" if after.strip() else ""

    def piece(key: str, text: str, reading: str | None = None) -> Fragment:
        return Fragment(key=key, text=text, reading=reading or text.rstrip(","))

    if len(words) == 1:
        bare = not before.strip() and not after.strip()
        key = f"number.{items[0]}" if bare else f"seat.{form}.{items[0]}"
        return [piece(key, f"{before}{words[0]}{after}".strip())]
    head_key = f"seats.{form}.{items[0]}" if before.strip() else f"number.{items[0]}"
    head = piece(head_key, f"{before}{words[0]}{',' if len(words) > 2 else ''}".strip())
    middle = [
        piece(f"number.{item}", f"{w}," if i < len(words) - 3 else w)
        for i, (item, w) in enumerate(zip(items[1:-1], words[1:-1], strict=True))
    ]
    last = piece(f"and{noun}.{items[-1]}", f"{conjunction} {words[-1]}{after}".strip())
    return [head, *middle, last]


_GROUPS = ("seat", "seats", "number", "and")


def _script_order(key: str) -> tuple[int, int, str, int]:
    """Phrases in the engine's order, then seats by form and number, numbers, endings."""
    parts = key.split(".")
    if parts[0] in _GROUPS and parts[-1].isdigit():
        form = ".".join(parts[1:-1])
        return (1 + _GROUPS.index(parts[0]), 0, form, int(parts[-1]))
    base, _, piece = key.rpartition(".")
    if piece.isdigit() and base in ANNOUNCEMENTS:
        return (0, ANNOUNCEMENT_KEYS.index(base), "", int(piece))
    return (0, ANNOUNCEMENT_KEYS.index(key) if key in ANNOUNCEMENTS else len(ANNOUNCEMENTS), key, 0)


def _form(kind: str, token: _Placeholder) -> str:
    """The placeholder's form; unmarked, a count is a number and a seat a player."""
    return token.form or (NUMBER_FORM if kind == COUNT else DEFAULT_FORM)


def _kind(key: str, param: str) -> str:
    if param not in ANNOUNCEMENTS[key]:
        raise PhraseError(
            f"phrase {key!r} has no param {param!r} (it takes: "
            f"{', '.join(ANNOUNCEMENTS[key]) or 'none'})"
        )
    return PARAM_KINDS[param]


def _checked(key: str, param: str, kind: str, value: Any) -> Any:
    """The value if it fits the param's kind, else PhraseError naming it."""
    if kind == SEAT and (isinstance(value, str) and value.strip()):
        return value.strip()
    if kind in (SEAT, COUNT) and _is_int(value) and value >= (1 if kind == SEAT else 0):
        return value
    if (
        kind == SEATS
        and isinstance(value, list | tuple)
        and value
        and all(_is_int(v) and v >= 1 for v in value)
    ):
        return list(value)
    wanted = {
        SEAT: "a seat number (int >= 1) or a name",
        SEATS: "a non-empty list of seat numbers",
        COUNT: "a count (int >= 0)",
    }[kind]
    raise PhraseError(f"phrase {key!r}: param {param!r} must be {wanted}, got {value!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _samples(names: Iterable[str]) -> dict[str, Any]:
    return {name: SAMPLE_PARAMS[name] for name in names}


def _variants(kind: str, seats: list[int]) -> list[Any]:
    """Values that put every seat in every spoken position of this kind of param."""
    if kind == SEAT:
        return list(seats)
    if kind == COUNT:
        return list(range(0, 5))
    out: list[Any] = []
    for seat in seats:
        a, b, c = ([s for s in seats if s != seat] * 3 or [seat] * 3)[:3]
        # alone; first (with and without the comma); last; middle (with and without)
        out += [[seat], [seat, a], [seat, a, b], [a, seat], [a, seat, b], [a, seat, b, c]]
    return out
