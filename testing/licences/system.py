"""The Debian packages (from their copyright files) and the LiveKit server's Go module (from
its LICENSE in the module cache) the product runs with."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from plugin.paths import ROOT

from .dependency import Dependency
from .names import Use, recognise, spdx

DEBIAN = [
    ("espeak-ng", Use.IN_PROCESS),  # pyttsx3's espeak driver loads libespeak-ng
    ("libespeak-ng1", Use.IN_PROCESS),
    ("librhvoice5", Use.IN_PROCESS),  # libRHVoice.so.5, which loads the two below
    ("librhvoice-core7", Use.IN_PROCESS),
    ("libsonic0", Use.IN_PROCESS),
    ("rhvoice-russian", Use.DATA),
    ("rhvoice-ukrainian", Use.DATA),
    ("rhvoice-english", Use.DATA),
    ("coturn", Use.PROGRAM),  # the TURN server, a process of its own
]
DOC = Path("/usr/share/doc")

# RHVoice's copyright file covers its whole source tree (Windows and Android front ends,
# build scripts, 30 voices) and every binary package of it carries the same file. Which
# part is in a package: a voice's or a language's folder only when the package installs it
# (dpkg -L), and otherwise only the folders the package is built from, checked by hand
# against RHVoice 1.8's build (src/lib makes libRHVoice, src/core with its third-party
# engines libRHVoice_core; the language and voice packages hold data/ only).
BUILT_FROM = {
    "librhvoice5": ("src/lib/", "src/include/", "config/"),
    "librhvoice-core7": ("src/core/", "src/include/", "src/third-party/", "config/"),
    "rhvoice-russian": ("data/",),
    "rhvoice-ukrainian": ("data/",),
    "rhvoice-english": ("data/",),
}
# The RHVoice voices the product may load (FIELD-NOTES, "Voice licences differ"). Debian's
# voice packages also install voices under licences that forbid commercial use or changes
# (RHVoice Lab's, marianna, volodymyr): they are listed as on disk and never loaded, and the
# voice code must never select one. A voice named here is checked like any dependency.
VOICES_USED = frozenset(
    {"aleksandr-hq", "aleksandr", "anna", "elena", "irina", "natalia", "anatol"}
    | {"slt", "clb", "bdl"}
)
NEVER_LOADED = "on disk, never loaded"


def debian_version(package: str) -> str | None:
    """The installed version of a Debian package, None when it is not installed."""
    if shutil.which("dpkg-query") is None:
        return None
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}\t${Version}", package],
        capture_output=True,
        text=True,
        check=False,
    )
    status, _, version = done.stdout.partition("\t")
    return version if done.returncode == 0 and status.endswith(" installed") else None


def copyright_parts(text: str) -> list[tuple[str, str]]:
    """(files, SPDX expression) for each part of a Debian copyright file; "" for a licence
    that could not be named. DEP-5 files are read by paragraph (a short name, or the text of
    its standalone License paragraph); any other file by the notice in its prose. The
    packaging's own files (debian/*) are not part of what is installed and are left out."""
    paragraphs = [block for block in re.split(r"\n\s*\n", text) if block.strip()]
    if not text.startswith("Format:"):
        return [("*", recognise(text) or "")]
    texts: dict[str, str] = {}
    for block in paragraphs:
        match = re.match(r"License:[ \t]*(.+)\n((?:[ \t].*\n?)+)", block)
        if match and not block.startswith("Files:"):
            texts[match.group(1).strip()] = match.group(2)
    parts = []
    for block in paragraphs:
        files = re.search(r"^Files:[ \t]*(.+(?:\n[ \t]+.+)*)", block, re.M)
        licence = re.search(r"^License:[ \t]*(.+)", block, re.M)
        if files is None or licence is None:
            continue
        names = " ".join(files.group(1).split())
        if all(name.startswith("debian/") for name in names.split()):
            continue
        parts.append((names, _debian_expression(licence.group(1), texts)))
    return parts


def _debian_expression(names: str, texts: dict[str, str]) -> str:
    """Debian's `GPL-2+ or LGPL-3+` with each short name made an SPDX identifier."""
    pieces = []
    for token in re.split(r"\s+(or|and)\s+", names.strip(), flags=re.I):
        if token.lower() in ("or", "and"):
            pieces.append(token.upper())
            continue
        identifier = spdx(token) or recognise(texts.get(token, ""))
        if identifier is None:
            return ""
        pieces.append(identifier)
    return " ".join(pieces)


def installed_paths(package: str) -> list[str]:
    done = subprocess.run(["dpkg-query", "-L", package], capture_output=True, text=True)
    return done.stdout.splitlines() if done.returncode == 0 else []


def _data_folders(files: str) -> list[str]:
    """`data/voices/elena/* data/languages/Russian/*` -> ["/voices/elena/", "/languages/..."]"""
    return [
        f"/{match.group(1)}/{match.group(2)}/".lower()
        for match in re.finditer(r"(?:^|\s)data/(voices|languages)/([^/\s]+)", files)
    ]


def in_package(files: str, built_from: tuple[str, ...] | None, paths: list[str]) -> bool:
    """Whether a copyright part (its Files patterns) describes something in the package."""
    folders = _data_folders(files)
    if folders:
        return any(folder in path.lower() + "/" for folder in folders for path in paths)
    patterns = files.split()
    if built_from is None or "*" in patterns:
        return True
    return any(pattern.startswith(built_from) for pattern in patterns)


def never_loaded(files: str) -> bool:
    """A part that is only voices the product never loads."""
    voices = re.findall(r"(?:^|\s)data/voices/([^/\s]+)", files)
    return bool(voices) and len(voices) == len(files.split()) and not VOICES_USED & set(voices)


def debian_package(package: str, use: Use) -> Dependency:
    version = debian_version(package)
    path = DOC / package / "copyright"
    if version is None or not path.is_file():
        return Dependency(package, "Debian", use, "", "not installed", installed=False)
    built_from = BUILT_FROM.get(package)
    paths = installed_paths(package)
    parts = tuple(
        (files, licence, NEVER_LOADED if never_loaded(files) else "")
        for files, licence in copyright_parts(path.read_text(errors="replace"))
        if in_package(files, built_from, paths)
    )
    licences = sorted({licence for _, licence, note in parts if not note})
    if not parts or "" in licences:
        expression = ""
    else:
        expression = " AND ".join(f"({item})" if " " in item else item for item in licences)
    return Dependency(package, "Debian", use, expression, str(path), version, parts=parts)


# -- the LiveKit server's Go module ------------------------------------------------------

LIVEKIT_MODULE = "github.com/livekit/livekit-server"


def livekit_server_version() -> str:
    """The release scripts/lib/setup.sh builds with `go install`."""
    setup = (ROOT / "scripts" / "lib" / "setup.sh").read_text()
    match = re.search(r'^LIVEKIT_SERVER_VERSION="([^"]+)"', setup, re.M)
    if match is None:
        raise ValueError("scripts/lib/setup.sh names no LIVEKIT_SERVER_VERSION")
    return match.group(1)


def go_module(module: str, version: str, use: Use) -> Dependency:
    """A Go module's licence from its LICENSE in the module cache (`go env GOMODCACHE`),
    where `go install` left the module it built."""
    go = shutil.which("go")
    cache = ""
    if go is not None:
        asked = subprocess.run([go, "env", "GOMODCACHE"], capture_output=True, text=True)
        cache = asked.stdout.strip()
    escaped = re.sub(r"[A-Z]", lambda capital: "!" + capital.group().lower(), module)
    folder = Path(cache) / f"{escaped}@{version}" if cache else None
    if folder is None or not folder.is_dir():
        missing = "not in the Go module cache (built by scripts/lib/setup.sh)"
        return Dependency(module, "Go module", use, "", missing, version, False)
    for name in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"):
        path = folder / name
        if path.is_file():
            licence = recognise(path.read_text(errors="replace")) or ""
            where = f"$GOMODCACHE/{escaped}@{version}/{name}"
            return Dependency(module, "Go module", use, licence, where, version)
    return Dependency(module, "Go module", use, "", f"{folder} (no LICENSE)", version)
