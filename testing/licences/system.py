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
    ("librhvoice5", Use.IN_PROCESS),
    ("rhvoice-russian", Use.DATA),
    ("rhvoice-ukrainian", Use.DATA),
    ("rhvoice-english", Use.DATA),
    ("coturn", Use.PROGRAM),  # the TURN server, a process of its own
]
DOC = Path("/usr/share/doc")


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


def debian_package(package: str, use: Use) -> Dependency:
    version = debian_version(package)
    path = DOC / package / "copyright"
    if version is None or not path.is_file():
        return Dependency(package, "Debian", use, "", "not installed", installed=False)
    parts = tuple(copyright_parts(path.read_text(errors="replace")))
    licences = sorted({licence for _, licence in parts})
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
