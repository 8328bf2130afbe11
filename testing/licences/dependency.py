"""One dependency and its licence as read, and the check of a list of them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .names import OUR_LICENCE, Use, allowed


@dataclass(frozen=True, slots=True)
class Dependency:
    """One thing the product depends on, and its licence as read where it is installed."""

    name: str
    kind: str  # "Python", "bundled library", "Debian", "Go module"
    use: Use
    licence: str  # an SPDX expression; "" when it could not be read
    source: str  # where the licence was read
    version: str = ""
    installed: bool = True
    # A Debian package's parts: (files, licence, note), the note saying why a part is not
    # checked ("on disk, never loaded"), or "".
    parts: tuple[tuple[str, str, str], ...] = ()


def problems(dependencies: Iterable[Dependency]) -> list[str]:
    """Every installed dependency whose licence is unknown or not allowed for its use."""
    found = []
    for dependency in dependencies:
        if not dependency.installed:
            if dependency.kind == "Python":  # a runtime requirement pip did not install
                found.append(f"Python {dependency.name}: required but not installed")
            continue
        label = f"{dependency.kind} {dependency.name} {dependency.version}".rstrip()
        if not dependency.licence:
            found.append(f"{label}: licence unknown (read {dependency.source})")
        elif not allowed(dependency.licence, dependency.use):
            found.append(
                f"{label}: {dependency.licence} may not be used {dependency.use.value} "
                f"with {OUR_LICENCE} code"
            )
    return found
