"""Simulated players: bots that join a table the way a browser page does.

Public API:
- `Strategy`: what a simulated player does given the view it sees (pure, seeded).
- `SimPlayer`: one bot seat: the table's WebSocket protocol with its seat token, WebRTC
  audio to the embedded room, a synthesised line said during its own speech.
- `SpeechTrack`, `speech_line`, `render_line`: the bot's microphone and what it says.
- `run_terminal_vote`: issue 2's terminal demo (a whole day vote with a tie and a revote).
"""

from .player import SimPlayer
from .speech import SpeechTrack, render_line, speech_line
from .strategy import Move, Strategy
from .terminal import run_terminal_vote

__all__ = [
    "Move",
    "SimPlayer",
    "SpeechTrack",
    "Strategy",
    "render_line",
    "run_terminal_vote",
    "speech_line",
]
