"""Links across a chain of games (issue 31, "links that outlive what the host did").

A finished table's pages follow the host to the next game: each is given its seat's token
at the new table (`moved`). That hand-over is the only power an old link has over a later
table, and it lasts only while the new table still holds the generation the hand-over
gave it (0, the table's first links): once the new table re-issued a link, no path
through an older table mints it again. So:

- `moved` answers None for a link the next game re-issued; the old page is refused
  (`token_reissued`) instead of being seated there.
- `POST /api/tables/{old}/next` with the old host token starts the next game and moves
  the pages, but never answers the new table's links (only the admin key gets them), and
  once the new table re-issued its host link the old host token is refused there.
- An archived table's links can still be re-issued (`Registry.reissue_archived`): a leaked
  link of a finished game is revoked, with its end screen and its path onwards.
"""

from __future__ import annotations

from typing import Literal

from plugin.host.inputs import HOST, WATCH
from plugin.host.views import STREAM, Viewer

from . import messages
from .context import Server

Link = int | Literal["host", "watch"]


def onward_link(viewer: Viewer | Literal["watch"]) -> Link:
    """The link of the next game that a page of the old one follows (a spectator's and
    the stream overlay's: the watch link)."""
    if isinstance(viewer, int):
        return viewer
    return HOST if viewer == HOST else WATCH


def still_first(server: Server, successor: str, link: Link) -> bool:
    """Whether the next game's `link` is still the one the hand-over gives (generation 0):
    the new table's host has not re-issued it."""
    registry = server.registry
    generations = registry.link_generations(successor) if registry is not None else {}
    return generations.get(link, 0) == 0


def moved(server: Server, successor: str, viewer: Viewer | Literal["watch"]) -> bytes | None:
    """The `moved` message that sends a page of the old table to its seat at the next
    game, with that seat's token there ("stream": the overlay's); None when the next game
    re-issued that link since (the old link's path onwards is closed)."""
    link = onward_link(viewer)
    if not still_first(server, successor, link):
        return None
    token = server.signer.issue(successor, link, generation=0, stream=viewer == STREAM)
    return messages.encode_moved(successor, token)


def host_may_follow(server: Server, successor: str) -> bool:
    """May the old table's host token still act on the chain (POST .../next)? Only while
    the next game's host link is the one the hand-over made."""
    return still_first(server, successor, HOST)


REISSUED = ("token_reissued", "this link was replaced at the next game; ask its host")
