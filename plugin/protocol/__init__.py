"""The game's record: the event log replayed into a club's protocol (JSON, HTML sheet)."""

from .export import game_protocol
from .sheet import render_sheet

__all__ = ["game_protocol", "render_sheet"]
