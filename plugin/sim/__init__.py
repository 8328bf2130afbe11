"""Simulated players and games.

Public API:
- `Strategy`: what a simulated player does given the view it sees (pure, seeded).
- `SimPlayer`: one bot seat: the table's WebSocket protocol with its seat token, WebRTC
  audio to the embedded room, a synthesised line said during its own speech.
- `SpeechTrack`, `speech_line`, `render_line`: the bot's microphone and what it says.
- `run_terminal_vote`: issue 2's terminal demo (a whole day vote with a tie and a revote).
- `plugin.sim.simulate`: whole games by random legal actions (`autohost simulate`).

The names load their modules on first use, so `autohost simulate` (the engine only) never
imports aiortc or the voice.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "Move": "strategy",
    "SimPlayer": "player",
    "SpeechTrack": "speech",
    "Strategy": "strategy",
    "render_line": "speech",
    "run_terminal_vote": "terminal",
    "speech_line": "speech",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
