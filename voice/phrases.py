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
(see `spoken_chunks` and `Catalogue.chunk_texts`). `text()` is those chunks joined.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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
    """Which espeak-ng voice speaks a language, and how fast."""

    name: str
    rate: int


@dataclass(frozen=True, slots=True)
class _Placeholder:
    param: str
    form: str  # "" when unmarked


@dataclass(frozen=True, slots=True, kw_only=True)
class Catalogue:
    """One language's phrases. Immutable; load with `Catalogue.load(lang)`."""

    lang: str
    voice: VoiceSpec
    numbers: str
    conjunction: str
    one: Mapping[str, str]
    many: Mapping[str, str]
    phrases: Mapping[str, str]
    path: Path

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
            voice=VoiceSpec(name=voice, rate=rate),
            numbers=str(doc.get("numbers", lang)),
            conjunction=conjunction.strip(),
            one=dict(one),
            many=dict(many),
            phrases=dict(phrases),
            path=path,
        )

    # -- rendering ---------------------------------------------------------------------

    def text(self, key: str, params: Mapping[str, Any] | None = None) -> str:
        """The phrase for `key` with `params` filled in, as the host says it."""
        return " ".join(self.chunks(key, params or {}))

    def chunks(self, key: str, params: Mapping[str, Any]) -> list[str]:
        """The phrase as separately synthesised pieces (literal text, player references)."""
        template = self._template(key)
        pieces: list[str] = []
        for token in _tokens(template):
            if isinstance(token, str):
                _add_literal(pieces, token)
                continue
            if token.param not in params:
                raise PhraseError(f"phrase {key!r} needs param {token.param!r}")
            kind = _kind(key, token.param)
            value = _checked(key, token.param, kind, params[token.param])
            pieces.extend(self._spoken(key, kind, _form(kind, token), value))
        if not pieces:
            raise PhraseError(f"phrase {key!r} in {self.lang} is empty")
        pieces[0] = pieces[0][:1].upper() + pieces[0][1:]
        return pieces

    def chunk_texts(self, seats: Iterable[int]) -> set[str]:
        """Every chunk any announcement can produce at a table with these seats.

        Each placeholder's chunks depend only on its own value and its position in a list,
        so trying each seat in each position (others at sample values) covers them all.
        """
        seats = sorted(set(seats))
        found: set[str] = set()
        for key in self.phrases.keys() & ANNOUNCEMENTS.keys():
            names = ANNOUNCEMENTS[key]
            found.update(self.chunks(key, _samples(names)))
            for name in names:
                for variant in _variants(PARAM_KINDS[name], seats):
                    found.update(self.chunks(key, {**_samples(names), name: variant}))
        return found

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

    def _spoken(self, key: str, kind: str, form: str, value: Any) -> list[str]:
        if isinstance(value, str):  # a player's name: said as written
            return [value]
        items = [value] if isinstance(value, int) else list(value)
        words = [num2words(item, lang=self.numbers) for item in items]
        if kind == COUNT or form == NUMBER_FORM:
            return _listed(words, "{n}", self.conjunction)
        table = self.one if len(items) == 1 else self.many
        if form not in table:
            raise PhraseError(f"phrase {key!r}: no [player] form {form!r} in {self.lang}")
        return _listed(words, table[form], self.conjunction)


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


def _add_literal(pieces: list[str], text: str) -> None:
    """Append literal text; leading punctuation closes the previous chunk."""
    text = " ".join(text.split())
    attached = _ATTACHED.match(text)
    if attached and pieces:
        pieces[-1] += attached.group(0).rstrip()
        text = text[attached.end() :]
    if text.strip():
        pieces.append(text.strip())


def _listed(words: Sequence[str], template: str, conjunction: str) -> list[str]:
    """Chunks for a list: "игроки номер два," "пять" "и семь" (template around the list)."""
    before, after = template.split("{n}")
    if len(words) == 1:
        return [f"{before}{words[0]}{after}".strip()]
    head = f"{before}{words[0]}{',' if len(words) > 2 else ''}".strip()
    middle = [f"{w}," if i < len(words) - 3 else w for i, w in enumerate(words[1:-1])]
    return [head, *middle, f"{conjunction} {words[-1]}{after}".strip()]


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
