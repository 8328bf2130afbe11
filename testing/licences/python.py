"""The Python distributions the product needs at run time, and the libraries their wheels
vendor, with their licences from importlib.metadata."""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import re
from collections.abc import Iterator
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

from .dependency import Dependency
from .names import Use, recognise, spdx

PROJECT = "mafia-autohost"


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_closure(root: str = PROJECT) -> list[tuple[str, frozenset[str]]]:
    """The installed distributions `root` needs at run time (its extras left out), each with
    the extras asked of it, in name order."""
    environment = {key: str(value) for key, value in default_environment().items()}
    wanted: dict[str, set[str]] = {}
    queue: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    while queue:
        name, extras = queue.pop()
        key = _key(name)
        if key in wanted and extras <= wanted[key]:
            continue
        wanted.setdefault(key, set()).update(extras)
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue  # reported by python_dependencies
        for line in requires:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is not None and not any(
                marker.evaluate({**environment, "extra": extra}) for extra in {"", *extras}
            ):
                continue
            queue.append((requirement.name, frozenset(requirement.extras)))
    return sorted(((key, frozenset(extras)) for key, extras in wanted.items() if key != _key(root)))


def _field(meta: metadata.PackageMetadata, name: str) -> str:
    return str((meta.get_all(name) or [""])[0])


def python_licence(distribution: metadata.Distribution) -> tuple[str, str]:
    """(SPDX expression, where it was read) for an installed distribution."""
    meta = distribution.metadata
    expression = _field(meta, "License-Expression")
    if expression:
        return expression.strip(), "License-Expression"
    field = _field(meta, "License").strip()
    if field and "\n" not in field and spdx(field):
        return str(spdx(field)), "License field"
    for classifier in meta.get_all("Classifier") or []:
        if classifier.startswith("License :: ") and spdx(classifier.split(" :: ")[-1]):
            return str(spdx(classifier.split(" :: ")[-1])), "classifier"
    for path in _licence_files(distribution):
        identifier = recognise(path.read_text(errors="replace"))
        if identifier:
            return identifier, f"licence file {path.name}"
    if field:  # the whole text in the License field
        identifier = recognise(field)
        if identifier:
            return identifier, "License field's text"
    return "", "metadata and licence files"


def _licence_files(distribution: metadata.Distribution) -> Iterator[Path]:
    for file in distribution.files or []:
        parts = file.parts
        if len(parts) >= 2 and parts[0].endswith(".dist-info"):
            name = parts[-1].upper()
            if name.startswith(("LICEN", "COPYING")) and not name.endswith((".PY", ".PYC")):
                path = Path(str(distribution.locate_file(file)))
                if path.is_file():
                    yield path


# Libraries that auditwheel vendors into a wheel (`<package>.libs`) carry no licence file of
# their own; their upstream licences, checked by hand, by library name. A library missing
# here is unknown, and fails the check until someone reads its licence and adds it.
VENDORED = {
    "libSvtAv1Enc": "BSD-3-Clause-Clear",
    "libXau": "MIT",
    "libasound": "LGPL-2.1-or-later",
    "libcom_err": "MIT",
    "libcrc32c": "BSD-3-Clause",
    "libcrypt": "LGPL-2.1-or-later",
    "libcrypto": "Apache-2.0",
    "libdav1d": "BSD-2-Clause",
    "libdrm": "MIT",
    "libgfortran": "GPL-3.0-or-later WITH GCC-exception-3.1",
    "libgmp": "LGPL-3.0-or-later OR GPL-2.0-or-later",
    "libgnutls": "LGPL-2.1-or-later",
    "libgssapi_krb5": "MIT",
    "libhogweed": "LGPL-3.0-or-later OR GPL-2.0-or-later",
    "libk5crypto": "MIT",
    "libkeyutils": "LGPL-2.1-or-later",
    "libkrb5": "MIT",
    "libkrb5support": "MIT",
    "liblber": "OLDAP-2.8",
    "libldap": "OLDAP-2.8",
    "libmp3lame": "LGPL-2.0-or-later",
    "libnettle": "LGPL-3.0-or-later OR GPL-2.0-or-later",
    "libopencore-amrnb": "Apache-2.0",
    "libopencore-amrwb": "Apache-2.0",
    "libopus": "BSD-3-Clause",
    "libpq": "PostgreSQL",
    "libquadmath": "LGPL-2.1-or-later",
    "libsasl2": "BSD-Attribution-HPND-disclaimer",
    "libscipy_openblas64_": "BSD-3-Clause",
    "libsharpyuv": "BSD-3-Clause",
    "libssl": "Apache-2.0",
    "libunistring": "LGPL-3.0-or-later OR GPL-2.0-or-later",
    "libvpl": "MIT",
    "libvpx": "BSD-3-Clause",
    "libwebp": "BSD-3-Clause",
    "libwebpmux": "BSD-3-Clause",
    "libx264": "GPL-2.0-or-later",
    "libx265": "GPL-2.0-or-later",
    "libxcb": "X11",
    "libxcb-shape": "X11",
    "libxcb-shm": "X11",
    "libxcb-xfixes": "X11",
}
FFMPEG_LIBRARIES = frozenset(
    {"libavcodec", "libavdevice", "libavfilter", "libavformat", "libavutil"}
    | {"libswresample", "libswscale"}
)


def vendored_name(filename: str) -> str:
    """`libx264-d6533a8d.so.165` -> `libx264` (auditwheel's hash and the soname cut off)."""
    stem = filename.split(".so")[0]
    return re.sub(r"(-[0-9a-f]{8})+$", "", stem)


def vendored(distribution: metadata.Distribution, owner: str) -> list[Dependency]:
    """The shared libraries vendored in a wheel (its `<package>.libs` folder), each with its
    licence."""
    libraries = {
        vendored_name(file.parts[-1])
        for file in distribution.files or []
        if len(file.parts) == 2 and file.parts[0].endswith(".libs") and ".so" in file.parts[1]
    }
    found = []
    for library in sorted(libraries):
        licence, source = VENDORED.get(library, ""), f"upstream licence ({owner}'s wheel)"
        if library in FFMPEG_LIBRARIES:
            licence, source = _ffmpeg_licence(library)
        found.append(Dependency(library, "bundled library", Use.IN_PROCESS, licence, source))
    return found


def _ffmpeg_licence(library: str) -> tuple[str, str]:
    """What the FFmpeg library inside PyAV says its licence is (avcodec_license() and its
    siblings, as `av._core.library_meta` reports them)."""
    try:
        said = str(importlib.import_module("av._core").library_meta[library]["license"])
    except (ImportError, AttributeError, KeyError, TypeError):
        return "", "av._core.library_meta"
    return spdx(said) or "", f"{library}'s own licence string ({said!r})"


def python_dependencies() -> list[Dependency]:
    found = []
    for key, _extras in runtime_closure():
        try:
            distribution = metadata.distribution(key)
        except metadata.PackageNotFoundError:
            found.append(Dependency(key, "Python", Use.IN_PROCESS, "", "not installed"))
            continue
        licence, source = python_licence(distribution)
        name = distribution.metadata["Name"]
        found.append(
            Dependency(name, "Python", Use.IN_PROCESS, licence, source, distribution.version)
        )
        found += vendored(distribution, name)
    return found
