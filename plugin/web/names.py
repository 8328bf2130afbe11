"""Players' names as the lobby takes them (issue 31, "names").

The outside check had the lobby accept joiners (ZWJ, ZWNJ, U+034F), invisible fillers
(Hangul U+3164, braille blank U+2800), 40 combining marks on one letter, Cyrillic
look-alikes of a seated player's Latin name and a name equal to another seated player's
(two tiles with one name). A name is now:

- normalised: NFKC (full-width and styled letters become plain ones), runs of spaces one;
- refused when it holds an invisible or default-ignorable character (joiners, direction
  marks and overrides, variation selectors, fillers, blanks, tags: Unicode's
  Default_Ignorable_Code_Point, UAX #44), a control or format character, more than
  MAX_MARKS combining marks on one letter, or no letter or digit at all;
- compared by its skeleton (Unicode TR39, section 4): case folded, each character mapped
  to the one it is confusable with, by the confusables data of the `confusable-homoglyphs`
  package (Unicode's confusables.txt), so "Anna" in Cyrillic letters is "Anna".
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs import confusables

MAX_MARKS = 2  # combining marks on one letter: a Vietnamese letter has two
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), and the blanks
# that are not ignorable but show nothing (Hangul fillers, the braille blank).
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF), (0x2800, 0x2800),
)  # fmt: skip
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


class BadName(ValueError):
    """A name the lobby refuses; the message says why."""


def _invisible(char: str) -> bool:
    code = ord(char)
    if any(low <= code <= high for low, high in _IGNORABLE_RANGES):
        return True
    return unicodedata.category(char) in _HIDDEN_CATEGORIES


def normalised(raw: str) -> str:
    """`raw` as a name (NFKC, trimmed, one space between words), or BadName."""
    text = unicodedata.normalize("NFKC", raw)
    if any(_invisible(c) for c in text):  # a line break too (Cc)
        raise BadName("a name may not hold invisible, joining or direction characters")
    name = " ".join(word for word in text.split(" ") if word)
    marks = 0
    for char in unicodedata.normalize("NFD", name):
        marks = marks + 1 if unicodedata.combining(char) else 0
        if marks > MAX_MARKS:
            raise BadName(f"at most {MAX_MARKS} accents on one letter")
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        raise BadName("a name needs a letter or a digit")
    return name


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's representative: one character per group of characters
    the confusables data says look alike (the smallest), so a skeleton is one string."""
    parent: dict[str, str] = {}

    def find(char: str) -> str:
        while parent.get(char, char) != char:
            parent[char] = parent.get(parent[char], parent[char])
            char = parent[char]
        return char

    for char, entries in confusables.confusables_data.items():
        for entry in entries:
            other = entry["c"].replace("\u200e", "")  # the data wraps RTL letters in LRMs
            if len(other) != 1 or len(char) != 1:
                continue
            a, b = find(char), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {char: find(char) for char in parent}


def skeleton(name: str) -> str:
    """What `name` looks like (TR39's skeleton, by the confusables data): two names with
    one skeleton are one name to a player reading the tiles."""
    prototypes = _prototypes()

    def mapped(text: str) -> str:
        return "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))

    # Mapped before case folding too: the data holds capitals' look-alikes ("I" and "l",
    # Cyrillic "М" and "M") that their small letters do not have.
    return mapped(mapped(unicodedata.normalize("NFKC", name)).casefold())
