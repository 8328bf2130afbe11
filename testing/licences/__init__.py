"""The licences of what the product depends on, read from the installed environment, and
whether each may be combined with this project's own licence (Apache-2.0).

Read, not remembered: the Python distributions of the runtime dependency closure through
importlib.metadata (License-Expression, else the License field, else the classifiers, else
the text of the licence files), the libraries vendored inside their wheels (`<pkg>.libs`,
FFmpeg's own licence as the library reports it), the Debian packages from
/usr/share/doc/<package>/copyright (DEP-5 paragraphs, or the prose notice), and the LiveKit
server from the LICENSE of its Go module in the module cache. scripts/licences writes
docs/licences.md from `read_all()`; tests/test_licences.py fails on any `problems()`.

Why Apache-2.0 and this allow-list: see docs/licences.md ("Our licence").
"""

from __future__ import annotations

from .dependency import Dependency, problems
from .names import COMBINABLE, OUR_LICENCE, SEPARATE, Use, allowed, recognise, spdx
from .python import python_dependencies
from .system import DEBIAN, LIVEKIT_MODULE, debian_package, go_module, livekit_server_version

__all__ = [
    "COMBINABLE",
    "OUR_LICENCE",
    "SEPARATE",
    "Dependency",
    "Use",
    "allowed",
    "problems",
    "read_all",
    "recognise",
    "spdx",
]


def read_all() -> list[Dependency]:
    """Every runtime dependency: Python (and what its wheels bundle), Debian, Go."""
    return [
        *python_dependencies(),
        *(debian_package(package, use) for package, use in DEBIAN),
        go_module(LIVEKIT_MODULE, livekit_server_version(), Use.PROGRAM),
    ]
