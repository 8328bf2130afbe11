"""Personal links (issue 33): a person's link of one kind, `~club/<kind>/<person>`, signed by
the server's one signer (plugin.signing) like a table's links: its token's "table" is that
path and its generation the link's, so re-issuing a link (a new generation) or revoking it
stops the old token at once. A player's link lets its browser join any table's lobby as
himself; a judge's signs sheets; an admin's runs the club's roster and corrects sheets.

`admit` is the one check of a personal token: genuine and unexpired (the signer), of a
person on the roster, of his link's current generation and not revoked, and of a kind he
holds the right for now (a judge's link stops when the right is taken back)."""

from __future__ import annotations

from dataclasses import dataclass

from plugin.signing import HOST, Signer, TokenError

from .state import KINDS, ClubState, Player

PREFIX = "~club/"
LIFETIME = 365 * 24 * 3600  # a season and more: it is revoked, not left to expire


@dataclass(frozen=True, slots=True, kw_only=True)
class Person:
    """Who a personal token admits: the player and the kind of his link."""

    player: Player
    kind: str

    @property
    def source(self) -> str:
        """How the club's records name the writer."""
        return f"{self.kind}:{self.player.id}"


def path_of(kind: str, player_id: str) -> str:
    return f"{PREFIX}{kind}/{player_id}"


def issue(signer: Signer, kind: str, player_id: str, generation: int) -> str:
    return signer.issue(path_of(kind, player_id), HOST, lifetime=LIFETIME, generation=generation)


def link_url(base_url: str, token: str) -> str:
    """The link a person opens: his page, the token in the fragment (never sent in a URL)."""
    return f"{base_url.rstrip('/')}/club/me#token={token}"


def admit(signer: Signer, state: ClubState, token: str) -> Person:
    """The person a personal token admits now; else TokenError (its code says why)."""
    grant = signer.verify(token)
    kind, _, player_id = grant.table.removeprefix(PREFIX).partition("/")
    if not grant.table.startswith(PREFIX) or kind not in KINDS or not grant.is_host:
        raise TokenError("token_not_personal", "this is a table's link, not a personal one")
    player = state.players.get(player_id)
    link = player.links.get(kind) if player is not None else None
    if player is None or link is None:
        raise TokenError("token_unknown", "this link is not on the club's roster")
    if link.revoked:
        raise TokenError("token_revoked", "this link was revoked; ask the club for a new one")
    if grant.generation != link.generation:
        raise TokenError("token_reissued", "this link was re-issued; use the newest one")
    if kind != "player" and kind not in player.roles:
        raise TokenError("token_no_right", f"{player.nick} is no longer a club {kind}")
    return Person(player=player, kind=kind)
