"""How well a transcript matches what the host meant to say: one normalisation for both
sides, then the character error rate (CER).

`normalise` puts a phrase and what the recogniser heard in the same form: lower case, "ё"
as "е", every apostrophe dropped ("дев'ять", "девʼять" and "дев’ять" are one word), "№"
and "#" as the word for "number", every run of digits as its words in the language
(num2words, as voice.phrases says seat numbers), punctuation and hyphens as spaces, one
space between words. The CER is the edit distance between the two normalised texts over
the reference's length, each phrase's edits capped at its length (a hallucinated page of
text counts as a phrase wholly missed, not as ten of them).

Tests and benchmarks only (testing/recogniser.py does the hearing).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from num2words import num2words  # type: ignore[import-untyped]

APOSTROPHES = "'’ʼ`´‘"
# "№ 7" is said "номер сім"; English "#7" is "number seven".
NUMBER_SIGN = {"ru": "номер", "uk": "номер", "en": "number"}
_DIGITS = re.compile(r"\d+")
_NOT_WORD = re.compile(r"[^\w]+")


def normalise(text: str, lang: str) -> str:
    """`text` in the one form both sides are compared in (see the module docstring)."""
    if lang not in NUMBER_SIGN:
        raise ValueError(f"no normalisation for language {lang!r} (have {sorted(NUMBER_SIGN)})")
    text = unicodedata.normalize("NFC", text).lower().replace("ё", "е")
    for mark in APOSTROPHES:
        text = text.replace(mark, "")
    text = text.replace("№", f" {NUMBER_SIGN[lang]} ").replace("#", f" {NUMBER_SIGN[lang]} ")
    text = _DIGITS.sub(lambda m: f" {number_words(int(m.group(0)), lang)} ", text)
    text = _NOT_WORD.sub(" ", text.replace("_", " "))
    for mark in APOSTROPHES:  # num2words writes "дев'ять"
        text = text.replace(mark, "")
    return " ".join(text.split())


def number_words(n: int, lang: str) -> str:
    """`n` in words, as the host says it (num2words, the catalogues' `numbers`)."""
    words: str = num2words(n, lang=lang)
    for mark in APOSTROPHES:
        words = words.replace(mark, "")
    return words


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance (insertions, deletions, substitutions) between two sequences."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


@dataclass(frozen=True, slots=True)
class Score:
    """One phrase judged: the normalised texts and the (capped) character edits."""

    reference: str
    heard: str
    edits: int

    @property
    def length(self) -> int:
        return len(self.reference)

    @property
    def cer(self) -> float:
        return self.edits / self.length if self.length else float(self.edits > 0)


def score(reference: str, heard: str, lang: str) -> Score:
    """How far `heard` is from `reference`, both normalised; edits capped at its length."""
    ref, got = normalise(reference, lang), normalise(heard, lang)
    return Score(ref, got, min(edit_distance(ref, got), len(ref)))


def cer(reference: str, heard: str, lang: str) -> float:
    """The character error rate of one phrase (0.0 = every character right)."""
    return score(reference, heard, lang).cer


def total_cer(scores: Iterable[Score]) -> float:
    """The character error rate over many phrases: all edits over all reference characters."""
    edits = length = 0
    for s in scores:
        edits, length = edits + s.edits, length + s.length
    return edits / length if length else 0.0


def words(text: str, lang: str) -> list[str]:
    """The normalised words of `text`."""
    return normalise(text, lang).split()


def heard_seats(heard: str, seats: Iterable[int], lang: str) -> list[int]:
    """Which of `seats` the transcript says as numbers (digits or words), in any order."""
    said = f" {normalise(heard, lang)} "
    return [seat for seat in seats if f" {number_words(seat, lang)} " in said]
