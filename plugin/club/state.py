"""The club's state, folded from its records (issue 33): the roster (players with a nickname
unique in the club), each person's rights (judge, admin), his personal links, and the
judges' signed sheets with their corrections.

Theory of operation (the lobby's, plugin.web.lobby):
- Every change is asked for first (`add_player`, `issue_link`, `revoke_link`, `grant`,
  `sign`, `correct`): the question checks it against the state and answers the record to
  log, or raises ClubError and changes nothing. Only `apply` changes the state, one logged
  record at a time, so the state after a restart is the fold of the log, nothing else.
- A record carries everything it decided (a new player's id, a link's generation, a game's
  seats and the judge's sheet as JSON), so replaying it needs no clock and no other table.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from plugin.host.settings import MAX_NAME, has_hidden_characters

LANGUAGES = ("uk", "ru", "en")  # the pages' catalogues
KINDS = ("player", "judge", "admin")  # a personal link's kind; judge and admin are rights
ROLES = ("judge", "admin")
MAX_FIELD = 60  # a name, a city, a club
MAX_REASON = 500
MAX_PLAYERS = 5000


class ClubError(Exception):
    """A refused club request; `code` is stable (the pages translate it), `status` the HTTP
    status it is answered with."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass(slots=True)
class Link:
    generation: int  # a re-issued link counts one up; tokens of an older one are refused
    revoked: bool = False


@dataclass(slots=True, kw_only=True)
class Player:
    id: str
    nick: str
    name: str = ""
    city: str = ""
    club: str = ""
    roles: set[str] = field(default_factory=set)
    links: dict[str, Link] = field(default_factory=dict)  # kind -> its current link

    def record(self) -> dict[str, Any]:
        """The roster's public view of him (no link state)."""
        return {"id": self.id, "nick": self.nick, "name": self.name, "city": self.city,
                "club": self.club, "roles": sorted(self.roles)}  # fmt: skip


@dataclass(slots=True, kw_only=True)
class Signed:
    """A game's signed sheet as it stands now, and its history (the signing, then every
    correction: who, when, why, before and after)."""

    game_id: str
    season: str
    system: str
    game: dict[str, Any]  # the scoring view of the game (plugin.club.games.game_record)
    sheet: dict[str, Any]  # the judge's parts (plugin.scoring.sheet_from_json's form)
    history: list[dict[str, Any]] = field(default_factory=list)


def _text(raw: object, what: str, *, required: bool, limit: int = MAX_FIELD) -> str:
    if raw is None and not required:
        return ""
    if not isinstance(raw, str):
        raise ClubError("bad_field", f"{what} is text")
    text = raw.strip()
    if required and not text:
        raise ClubError("bad_field", f"{what} is required")
    if len(text) > limit:
        raise ClubError("bad_field", f"{what} is at most {limit} characters")
    if has_hidden_characters(text):
        raise ClubError("bad_field", f"{what} may not hold control characters")
    return text


def reason_text(raw: object, what: str) -> str:
    """A required comment: why a correction, a revocation... was made."""
    if not isinstance(raw, str) or not raw.strip():
        raise ClubError("reason_required", f"{what} needs a reason")
    return _text(raw, what, required=True, limit=MAX_REASON)


def same_nick(a: str, b: str) -> bool:
    """Nicknames are unique in the club as a person reads them: case and Unicode forms aside."""
    return (
        unicodedata.normalize("NFKC", a).casefold() == unicodedata.normalize("NFKC", b).casefold()
    )


class ClubState:
    """The club as its records have it (see the module's theory of operation)."""

    def __init__(self) -> None:
        self.players: dict[str, Player] = {}
        self.name = ""  # the club's name, on its pages
        self.language = ""  # the club's language: its pages' default ("" : the browser's)
        self.signed: dict[str, Signed] = {}
        self.sign_order: list[str] = []  # game ids in the order they were first signed

    # --- what the club holds -------------------------------------------------------------

    def player(self, ref: object) -> Player:
        """A player by id or nickname; ClubError (404) when the roster has nobody so named."""
        if isinstance(ref, str):
            if ref in self.players:
                return self.players[ref]
            found = next((p for p in self.players.values() if same_nick(p.nick, ref)), None)
            if found is not None:
                return found
        raise ClubError("no_player", f"the club has no player {ref!r}", 404)

    def nick_of(self, player_id: str) -> str:
        player = self.players.get(player_id)
        if player is not None:
            return player.nick
        return player_id.removeprefix("guest:")

    # --- questions: the record a change takes, or ClubError ------------------------------

    def add_player(self, fields: Mapping[str, object]) -> dict[str, Any]:
        unknown = set(fields) - {"nick", "name", "city", "club"}
        if unknown:
            raise ClubError("bad_field", f"unknown fields {sorted(unknown)}")
        nick = _text(fields.get("nick"), "nick", required=True, limit=MAX_NAME)
        if nick.startswith("guest:") or nick.startswith("~"):
            raise ClubError("bad_field", "a nickname may not start with 'guest:' or '~'")
        if any(same_nick(p.nick, nick) for p in self.players.values()):
            raise ClubError("nick_taken", f"the nickname {nick!r} is already taken", 409)
        if len(self.players) >= MAX_PLAYERS:
            raise ClubError("roster_full", f"a club holds {MAX_PLAYERS} players at most", 409)
        record = {"type": "player.add", "id": f"p{len(self.players) + 1}", "nick": nick}
        for key in ("name", "city", "club"):
            record[key] = _text(fields.get(key), key, required=False)
        return record

    def settings(self, fields: Mapping[str, object]) -> dict[str, Any]:
        """The club's name and language (what its pages show by default)."""
        unknown = set(fields) - {"name", "language"}
        if unknown:
            raise ClubError("bad_field", f"unknown fields {sorted(unknown)}")
        language = fields.get("language", self.language)
        if language not in ("", *LANGUAGES):
            raise ClubError("bad_language", f"the club's language is one of {list(LANGUAGES)}")
        name = _text(fields.get("name", self.name), "name", required=False)
        return {"type": "club.settings", "name": name, "language": language}

    def issue_link(self, ref: object, kind: object) -> dict[str, Any]:
        """A new personal link of `kind` (the old one, if any, stops working)."""
        player = self.player(ref)
        if kind not in KINDS:
            raise ClubError("bad_kind", f"a personal link is one of {list(KINDS)}")
        if kind in ROLES and kind not in player.roles:
            raise ClubError("no_right", f"{player.nick} is not a club {kind}: grant it first", 409)
        current = player.links.get(str(kind))
        generation = 0 if current is None else current.generation + 1
        return {"type": "link.issue", "player": player.id, "kind": kind, "generation": generation}

    def revoke_link(self, ref: object, kind: object) -> dict[str, Any]:
        player = self.player(ref)
        link = player.links.get(str(kind)) if kind in KINDS else None
        if link is None or link.revoked:
            raise ClubError("no_link", f"{player.nick} holds no {kind} link to revoke", 409)
        return {"type": "link.revoke", "player": player.id, "kind": kind}

    def grant(self, ref: object, role: object, *, revoke: bool = False) -> dict[str, Any]:
        player = self.player(ref)
        if role not in ROLES:
            raise ClubError("bad_role", f"a right is one of {list(ROLES)}")
        if revoke and role not in player.roles:
            raise ClubError("no_right", f"{player.nick} is not a club {role}", 409)
        if not revoke and role in player.roles:
            raise ClubError("already_granted", f"{player.nick} is already a club {role}", 409)
        return {
            "type": "role.revoke" if revoke else "role.grant",
            "player": player.id,
            "role": role,
        }

    def sign(
        self, game_id: str, season: str, system: str, game: dict[str, Any], sheet: dict[str, Any],
        by: str,
    ) -> dict[str, Any]:  # fmt: skip
        """A judge signs a finished game (the sheet checked by the caller against the game)."""
        if game_id in self.signed:
            raise ClubError(
                "already_signed", f"game {game_id} is signed: an admin corrects it", 409
            )
        season = _text(season, "season", required=True, limit=20)
        return {"type": "sheet.sign", "game_id": game_id, "season": season, "system": system,
                "game": game, "sheet": sheet, "by": by}  # fmt: skip

    def correct(
        self, game_id: str, sheet: dict[str, Any], game: dict[str, Any], reason: object, by: str
    ) -> dict[str, Any]:
        """An admin corrects a signed game: the new sheet (and seats), with why."""
        signed = self.signed.get(game_id)
        if signed is None:
            raise ClubError("not_signed", f"game {game_id} is not signed yet", 409)
        why = reason_text(reason, "a correction")
        if sheet == signed.sheet and game == signed.game:
            raise ClubError("no_change", "the correction changes nothing", 409)
        return {"type": "sheet.correct", "game_id": game_id, "sheet": sheet, "game": game,
                "before": {"sheet": signed.sheet, "game": signed.game}, "reason": why,
                "by": by}  # fmt: skip

    # --- the one place the club changes -----------------------------------------------

    def apply(self, record: Mapping[str, Any], *, wall: float = 0.0) -> None:
        """Replay one logged record (one the questions above answered)."""
        kind = record["type"]
        if kind == "player.add":
            self.players[record["id"]] = Player(
                id=record["id"], nick=record["nick"], name=record.get("name", ""),
                city=record.get("city", ""), club=record.get("club", ""),
            )  # fmt: skip
        elif kind == "club.settings":
            self.name, self.language = record["name"], record["language"]
        elif kind == "link.issue":
            self.players[record["player"]].links[record["kind"]] = Link(record["generation"])
        elif kind == "link.revoke":
            self.players[record["player"]].links[record["kind"]].revoked = True
        elif kind == "role.grant":
            self.players[record["player"]].roles.add(record["role"])
        elif kind == "role.revoke":
            self.players[record["player"]].roles.discard(record["role"])
        elif kind == "sheet.sign":
            self.signed[record["game_id"]] = Signed(
                game_id=record["game_id"], season=record["season"], system=record["system"],
                game=record["game"], sheet=record["sheet"],
                history=[{"what": "signed", "by": record["by"], "wall": wall}],
            )  # fmt: skip
            self.sign_order.append(record["game_id"])
        elif kind == "sheet.correct":
            signed = self.signed[record["game_id"]]
            signed.sheet, signed.game = record["sheet"], record["game"]
            after = {"sheet": record["sheet"], "game": record["game"]}
            signed.history.append({"what": "corrected", "by": record["by"], "wall": wall,
                                   "reason": record["reason"], "before": record["before"],
                                   "after": after})  # fmt: skip
        elif kind.startswith("tournament."):
            pass  # a tournament's record, in the club's log: plugin.tournament folds it
        else:
            raise ValueError(f"not a club record: {kind!r}")
