"""Licence names: SPDX identifiers from the names packages use, licence texts recognised,
and which licences may be combined with ours (Apache-2.0) for each way a dependency is used.
"""

from __future__ import annotations

import enum
import re

OUR_LICENCE = "Apache-2.0"


class Use(enum.Enum):
    """How the product meets a dependency, which decides what its licence must allow."""

    IN_PROCESS = "in process"  # imported or loaded into the server's process
    DATA = "data"  # read by an in-process library (a voice's models)
    PROGRAM = "separate program"  # runs beside the server, spoken to over the network


# Licences whose code may be combined with Apache-2.0 code in one process and the whole
# conveyed: permissive ones, weak copyleft (LGPL, MPL-2.0: the rest keeps its licence), and
# GPL-3 or licences convertible to it (GPL-2.0-or-later, LGPL-2.x via its section 3), since
# Apache-2.0 code may be part of a GPL-3 whole. CC-BY-SA-4.0 is one-way compatible with
# GPL-3 (Creative Commons' compatibility list); it covers voice data only.
COMBINABLE = frozenset(
    {
        "0BSD",
        "Apache-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "BSD-3-Clause-Clear",
        "BSD-Attribution-HPND-disclaimer",
        "CC-BY-4.0",
        "CC-BY-SA-4.0",
        "CC0-1.0",
        "GPL-2.0-or-later",
        "GPL-3.0-only",
        "GPL-3.0-or-later",
        "HPND",
        "ISC",
        "LGPL-2.0-only",
        "LGPL-2.0-or-later",
        "LGPL-2.1-only",
        "LGPL-2.1-or-later",
        "LGPL-3.0-only",
        "LGPL-3.0-or-later",
        "MIT",
        "MIT-0",
        "MPL-2.0",
        "OLDAP-2.8",
        "PSF-2.0",
        "PostgreSQL",
        "X11",
        "Unlicense",
        "LicenseRef-public-domain",
        "Zlib",
    }
)
# A separate program shares no process with ours: any free licence will do, GPL-2.0-only
# and the AGPL included (they bind whoever changes that program, not us).
SEPARATE = COMBINABLE | {"GPL-2.0-only", "AGPL-3.0-only", "AGPL-3.0-or-later"}

# Names seen in License fields, classifiers and Debian's short names -> SPDX identifiers.
# Ambiguous ones ("BSD License", "LGPL") are left out on purpose: the licence text decides.
ALIASES = {
    "apache 2.0": "Apache-2.0",
    "apache license 2.0": "Apache-2.0",
    "apache license, version 2.0": "Apache-2.0",
    "apache software license": "Apache-2.0",
    "3-clause bsd license": "BSD-3-Clause",
    "bsd-3-clause": "BSD-3-Clause",
    "bsd-2-clause": "BSD-2-Clause",
    "expat": "MIT",
    "mit license": "MIT",
    "isc license (iscl)": "ISC",
    "mozilla public license 2.0 (mpl 2.0)": "MPL-2.0",
    "python software foundation license": "PSF-2.0",
    "gpl-2": "GPL-2.0-only",
    "gpl-2+": "GPL-2.0-or-later",
    "gpl-3": "GPL-3.0-only",
    "gpl-3+": "GPL-3.0-or-later",
    "lgpl-2": "LGPL-2.0-only",
    "lgpl-2+": "LGPL-2.0-or-later",
    "lgpl-2.1": "LGPL-2.1-only",
    "lgpl-2.1+": "LGPL-2.1-or-later",
    "lgpl-3": "LGPL-3.0-only",
    "lgpl-3+": "LGPL-3.0-or-later",
    "agpl-3": "AGPL-3.0-only",
    "agpl-3+": "AGPL-3.0-or-later",
    "public-domain": "LicenseRef-public-domain",
    "lgpl version 3 or later": "LGPL-3.0-or-later",
    "lgpl version 2.1 or later": "LGPL-2.1-or-later",
    "gpl version 3 or later": "GPL-3.0-or-later",
    "gpl version 2 or later": "GPL-2.0-or-later",
}
# Named so that a report says what they are, and refused everywhere: no commercial use, or
# no derivatives (RHVoice Lab's voices and others that Debian's RHVoice packages install).
REFUSED = frozenset(
    {"CC-BY-NC-4.0", "CC-BY-NC-ND-4.0", "CC-BY-NC-SA-4.0", "CC-BY-ND-4.0", "SSPL-1.0"}
)
KNOWN_IDS = {name.lower(): name for name in SEPARATE | REFUSED}


def spdx(name: str) -> str | None:
    """The SPDX identifier for a licence name, or None when the name is not certain."""
    key = " ".join(name.strip().lower().split())
    return KNOWN_IDS.get(key) or ALIASES.get(key)


# A licence's own text begins with its title; a package's notice says which version, and
# whether later ones too. Titles are looked for first (and only at the start: the texts
# mention other licences, and end with a notice template saying "or any later version").
TITLES: list[tuple[str, str]] = [
    (r"gnu affero general public license\s+version 3", "AGPL-3.0-only"),
    (r"gnu lesser general public license\s+version 3", "LGPL-3.0-only"),
    (r"gnu lesser general public license\s+version 2\.1", "LGPL-2.1-only"),
    (r"gnu library general public license\s+version 2", "LGPL-2.0-only"),
    (r"gnu general public license\s+version 3", "GPL-3.0-only"),
    (r"gnu general public license\s+version 2", "GPL-2.0-only"),
    (r"apache license,?\s+version 2\.0", "Apache-2.0"),
    (r"mozilla public license,? version 2\.0", "MPL-2.0"),
]
_LATER = r"[^.]*or \(at your option\) any later"
NOTICES: list[tuple[str, str]] = [
    (r"affero general public license[^.]{0,80}version 3" + _LATER, "AGPL-3.0-or-later"),
    (r"gnu affero general public license\s+version 3", "AGPL-3.0-only"),
    (r"lesser general public license[^.]{0,80}version 2\.1" + _LATER, "LGPL-2.1-or-later"),
    (r"lesser general public license[^.]{0,80}version 3" + _LATER, "LGPL-3.0-or-later"),
    (r"general public license[^.]{0,80}version 3" + _LATER, "GPL-3.0-or-later"),
    (r"general public license[^.]{0,80}version 2" + _LATER, "GPL-2.0-or-later"),
    (r"licensed under the apache (license,? )?(version )?2\.0", "Apache-2.0"),
    (r"permission is hereby granted, free of charge", "MIT"),
    (r"redistribution and use in source and binary forms.*neither the name", "BSD-3-Clause"),
    (r"redistribution and use in source and binary forms", "BSD-2-Clause"),
]


def recognise(text: str) -> str | None:
    """The licence a text is (or whose notice it carries), or None."""
    flat = " ".join(text.replace("*", " ").replace("#", " ").lower().split())
    for pattern, identifier in TITLES:
        if re.search(pattern, flat[:400]):
            return identifier
    for pattern, identifier in NOTICES:
        if re.search(pattern, flat):
            return identifier
    return None


def _tokens(expression: str) -> list[str]:
    return re.findall(r"\(|\)|[^\s()]+", expression)


def allowed(expression: str, use: Use) -> bool:
    """Whether an SPDX expression may be used the way `use` says: AND needs every part,
    OR one alternative; an exception (WITH) only adds permissions."""
    accepted = SEPARATE if use is Use.PROGRAM else COMBINABLE
    tokens = _tokens(expression)
    if not tokens:
        return False
    position = 0

    def either() -> bool:
        nonlocal position
        result = both()
        while position < len(tokens) and tokens[position].upper() == "OR":
            position += 1
            result = both() or result
        return result

    def both() -> bool:
        nonlocal position
        result = single()
        while position < len(tokens) and tokens[position].upper() == "AND":
            position += 1
            result = single() and result
        return result

    def single() -> bool:
        nonlocal position
        if position >= len(tokens):
            raise ValueError(f"incomplete licence expression: {expression!r}")
        token = tokens[position]
        position += 1
        if token == "(":
            result = either()
            if position >= len(tokens) or tokens[position] != ")":
                raise ValueError(f"unbalanced licence expression: {expression!r}")
            position += 1
        else:
            result = token in accepted
        if position < len(tokens) and tokens[position].upper() == "WITH":
            position += 2
        return result

    try:
        result = either()
    except ValueError:
        return False
    return result and position == len(tokens)
