"""Every runtime dependency, read where it is installed (testing.licences, the reading
scripts/licences writes docs/licences.md from), has a known licence that combines with
ours; and the check refuses made-up dependencies whose licence is unknown or does not."""

from __future__ import annotations

import importlib.metadata as metadata
import tomllib
from pathlib import Path

import pytest

from plugin.paths import ROOT
from testing.licences import OUR_LICENCE, Dependency, Use, allowed, problems, read_all, recognise
from testing.licences.python import python_licence, runtime_closure, vendored_name
from testing.licences.system import copyright_parts, debian_package, in_package, never_loaded

# What pyproject.toml asks for directly; the closure must hold them (so an empty or broken
# reading cannot pass for a clean one).
DIRECT = {"starlette", "uvicorn", "msgspec", "httpx", "websockets", "aiortc", "aioice", "av"}
DIRECT |= {"numpy", "pyttsx3", "num2words", "livekit", "livekit-api", "psycopg"}
DIRECT |= {"psycopg-binary"}  # through psycopg[binary]


def test_every_runtime_dependency_has_a_licence_that_combines_with_ours() -> None:
    dependencies = read_all()
    found = problems(dependencies)
    assert not found, "licences to resolve (see docs/licences.md):\n" + "\n".join(found)
    python = {d.name.lower() for d in dependencies if d.kind == "Python"}
    assert python >= DIRECT, f"the runtime closure misses {sorted(DIRECT - python)}"
    test_only = {"pytest", "hypothesis", "playwright", "ruff", "mypy"}
    assert not python & test_only, "test tools are not runtime dependencies"
    bundled = {d.name for d in dependencies if d.kind == "bundled library"}
    assert {"libavcodec", "libx264", "libpq"} <= bundled, "the wheels' own libraries are read"
    espeak = next(d for d in dependencies if d.name == "espeak-ng")
    if espeak.installed:
        assert espeak.licence == "GPL-3.0-or-later", espeak


def test_our_own_licence_is_stated_once_everywhere() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == OUR_LICENCE
    assert recognise((ROOT / "LICENSE").read_text()) == OUR_LICENCE
    installed = metadata.distribution("mafia-autohost").metadata
    assert installed.get_all("License-Expression") == [OUR_LICENCE]


@pytest.mark.parametrize(
    ("licence", "use", "accepted"),
    [
        ("MIT", Use.IN_PROCESS, True),
        ("GPL-3.0-or-later", Use.IN_PROCESS, True),
        ("GPL-3.0-or-later WITH GCC-exception-3.1", Use.IN_PROCESS, True),
        ("LGPL-3.0-or-later OR GPL-2.0-or-later", Use.IN_PROCESS, True),
        ("GPL-2.0-only OR MIT", Use.IN_PROCESS, True),
        ("(MIT OR GPL-2.0-only) AND Zlib", Use.IN_PROCESS, True),
        ("GPL-2.0-only", Use.IN_PROCESS, False),  # Apache-2.0 cannot join a GPL-2-only whole
        ("MIT AND GPL-2.0-only", Use.IN_PROCESS, False),
        ("GPL-2.0-only", Use.PROGRAM, True),  # a separate program shares no process
        ("AGPL-3.0-only", Use.IN_PROCESS, False),
        ("CC-BY-NC-ND-4.0", Use.DATA, False),  # RHVoice Lab's voices
        ("CC-BY-ND-4.0", Use.DATA, False),
        ("CC-BY-SA-4.0", Use.DATA, True),
        ("LicenseRef-Proprietary", Use.PROGRAM, False),
        ("SSPL-1.0", Use.PROGRAM, False),
        ("(MIT", Use.IN_PROCESS, False),
        ("MIT AND", Use.IN_PROCESS, False),
        ("", Use.IN_PROCESS, False),
    ],
)
def test_the_allow_list_decides_by_expression_and_use(
    licence: str, use: Use, accepted: bool
) -> None:
    assert allowed(licence, use) is accepted


def test_the_check_refuses_made_up_unknown_and_incompatible_dependencies() -> None:
    made_up = [
        Dependency("left-pad-gpl2", "Python", Use.IN_PROCESS, "GPL-2.0-only", "test", "1.0"),
        Dependency("mystery", "Python", Use.IN_PROCESS, "", "metadata", "0.1"),
        Dependency("tatiana", "Debian", Use.DATA, "CC-BY-NC-ND-4.0", "test", "1"),
        Dependency("vanished", "Python", Use.IN_PROCESS, "", "not installed", installed=False),
        Dependency("absent-voice", "Debian", Use.DATA, "", "not installed", installed=False),
        Dependency("fine", "Python", Use.IN_PROCESS, "BSD-3-Clause", "test", "2.0"),
    ]
    assert problems(made_up) == [
        "Python left-pad-gpl2 1.0: GPL-2.0-only may not be used in process with Apache-2.0 code",
        "Python mystery 0.1: licence unknown (read metadata)",
        "Debian tatiana 1: CC-BY-NC-ND-4.0 may not be used data with Apache-2.0 code",
        "Python vanished: required but not installed",
    ]


def _fake_distribution(folder: Path, metadata_text: str, files: dict[str, str]) -> Path:
    info = folder / "madeup-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(metadata_text)
    for name, text in files.items():
        (info / name).write_text(text)
    record = [f"madeup-1.0.dist-info/{name},," for name in ["METADATA", *files]]
    (info / "RECORD").write_text("\n".join(record) + "\n")
    return info


def test_the_reader_names_a_licence_from_its_text_and_refuses_gpl2_only(tmp_path: Path) -> None:
    """A made-up distribution whose metadata says only "GPL" (ambiguous) and whose COPYING
    is the GPL-2 text: read as GPL-2.0-only, which the check refuses in process."""
    gpl2 = Path("/usr/share/common-licenses/GPL-2")
    if not gpl2.is_file():
        pytest.skip("no /usr/share/common-licenses/GPL-2 on this machine")
    info = _fake_distribution(
        tmp_path,
        "Metadata-Version: 2.1\nName: madeup\nVersion: 1.0\nLicense: GPL\n"
        "Classifier: License :: OSI Approved :: GNU General Public License (GPL)\n",
        {"COPYING": gpl2.read_text()},
    )
    licence, source = python_licence(metadata.PathDistribution(info))
    assert (licence, source) == ("GPL-2.0-only", "licence file COPYING")
    dependency = Dependency("madeup", "Python", Use.IN_PROCESS, licence, source, "1.0")
    assert problems([dependency]) == [
        "Python madeup 1.0: GPL-2.0-only may not be used in process with Apache-2.0 code"
    ]


def test_the_reader_says_unknown_when_nothing_names_the_licence(tmp_path: Path) -> None:
    info = _fake_distribution(
        tmp_path,
        "Metadata-Version: 2.1\nName: madeup\nVersion: 1.0\nLicense: see the website\n",
        {"LICENSE": "All rights reserved. Call us for a quote.\n"},
    )
    licence, _ = python_licence(metadata.PathDistribution(info))
    assert licence == ""


def test_debian_copyright_files_are_read_by_part() -> None:
    dep5 = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/

Files: *
License: GPL-2+ or LGPL-3+

Files: voices/aleksandr-hq/*
License: CC-BY-SA-4.0

Files: voices/tatiana/*
License: RHVoice-Lab

Files: src/hash.h
License: Custom-hash

Files: debian/*
License: GPL-2

License: Custom-hash
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software.
"""
    assert copyright_parts(dep5) == [
        ("*", "GPL-2.0-or-later OR LGPL-3.0-or-later"),
        ("voices/aleksandr-hq/*", "CC-BY-SA-4.0"),
        ("voices/tatiana/*", ""),  # a licence named nowhere: unknown, so the check fails
        ("src/hash.h", "MIT"),
    ]
    prose = "either version 3 of the License, or (at your option) any later version."
    notice = f"under the terms of the GNU General Public License as published by the FSF; {prose}"
    assert copyright_parts(notice) == [("*", "GPL-3.0-or-later")]
    affero = f"the GNU Affero General Public License as published by the FSF; {prose}"
    assert copyright_parts(affero) == [("*", "AGPL-3.0-or-later")]  # not taken for the GPL
    assert allowed("AGPL-3.0-or-later", Use.IN_PROCESS) is False
    assert recognise("The Sonic Library is licensed under the Apache 2.0 license.") == "Apache-2.0"


def test_a_part_counts_for_a_package_only_when_the_package_holds_it() -> None:
    """RHVoice's one copyright file covers 30 voices and every front end; a voice's part
    counts where that voice is installed, a source folder where the package is built from
    it, and a voice the product never loads is not checked (but still listed)."""
    paths = ["/usr/share/RHVoice/voices/aleksandr-hq/voice.info", "/usr/share/RHVoice/voices"]
    paths += ["/usr/share/RHVoice/voices/tatiana/voice.info"]
    assert in_package("data/voices/aleksandr-hq/*", ("data/",), paths)
    assert in_package("data/voices/tatiana/*", ("data/",), paths)
    assert not in_package("data/voices/marianna/*", ("data/",), paths)
    assert not in_package("data/languages/Macedonian/*", ("data/",), paths)  # AGPL-3, absent
    assert in_package("*", ("src/lib/",), [])
    assert in_package("src/lib/*", ("src/lib/", "config/"), [])
    assert not in_package("src/nvda-addon/*", ("src/lib/", "config/"), [])
    assert in_package("src/nvda-addon/*", None, [])  # no list: every part counts
    assert never_loaded("data/voices/tatiana/*")
    assert never_loaded("data/voices/evgeniy-eng/* data/voices/evgeniy-rus/*")
    assert not never_loaded("data/voices/aleksandr-hq/*")
    assert not never_loaded("data/*")


def test_a_debian_package_that_is_not_installed_is_said_so() -> None:
    dependency = debian_package("no-such-package-for-licences", Use.DATA)
    assert dependency.installed is False and dependency.source == "not installed"
    assert problems([dependency]) == []


def test_the_closure_follows_extras_and_leaves_out_our_own_extras() -> None:
    names = {name for name, _ in runtime_closure()}
    assert "psycopg-binary" in names  # psycopg[binary]
    assert "pytest" not in names  # mafia-autohost[test]
    assert vendored_name("libx264-d6533a8d.so.165") == "libx264"
    assert vendored_name("libgfortran-040039e1-0352e75f.so.5.0.0") == "libgfortran"
