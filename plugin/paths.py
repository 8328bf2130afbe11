"""Where the project's data lives: config presets, phrase catalogues, caches."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = Path(os.environ.get("AUTOHOST_CONFIG", ROOT / "config"))
RULES_DIR = CONFIG_DIR / "rules"
PHRASES_DIR = CONFIG_DIR / "phrases"
CACHE_DIR = Path(os.environ.get("AUTOHOST_CACHE", ROOT / ".cache"))
