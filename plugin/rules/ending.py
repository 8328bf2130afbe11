"""The end of the game, as one value: `GameState.outcome` (Outcome(termination, winner)).

Rules implemented here:
- mafiaratings 1.4 / GAME.md: the game ends as soon as someone leaves and no black player
  is in the game (the city wins) or the black players in the game are at least as many as
  the red ones (the mafia wins).
- mafiaratings 1.5 / GAME.md: a draw when nights k..k+2 and days k+1..k+3 pass with nobody
  leaving (checked at the end of each day, voting.finish_vote).
- mafiaratings 8.19 (`final_minute_seconds`): a last minute before the end is announced;
  the result is already decided and does not change.
- The host may end the game, with a result or none (EndGame).
"""

from __future__ import annotations

from . import events as ev
from .effects import CloseDialog, GameOver
from .errors import InvalidAction
from .modes import Termination, Winner
from .state import Outcome, Phase
from .step import Step

_WHY = {
    Winner.CITY: Termination.NO_BLACK_LEFT,
    Winner.MAFIA: Termination.BLACK_PARITY,
    Winner.DRAW: Termination.QUIET_ROUNDS,
}


def check_end(st: Step) -> None:
    s = st.s
    if s.roles is None or s.outcome is not None:
        return
    black = len(s.alive & s.black_seats)
    red = len(s.alive) - black
    # mafiaratings 1.4: the city wins when every black player is out; the mafia when the
    # black players are at least as many as the red ones.
    if black == 0:
        end_game(st, Winner.CITY)
    elif black >= red:
        end_game(st, Winner.MAFIA)


def end_game(st: Step, winner: Winner) -> None:
    """The result is decided by the rules: the final minute (if any), then the end."""
    s = st.s
    s.outcome = Outcome(termination=_WHY[winner], winner=winner)
    if s.dialog is not None:
        s.dialog = None
        st.effects.append(CloseDialog())
    s.speech_queue = ()
    if winner is not Winner.DRAW and st.rules.final_minute_seconds > 0:
        s.phase = Phase.FINAL_MINUTE
        s.speaker = None
        st.speakers(s.alive)
        st.timer(st.rules.final_minute_seconds, "final_minute")
        return
    game_over(st)


def game_over(st: Step) -> None:
    s = st.s
    s.phase = Phase.OVER
    st.silence()
    st.wait()
    winner = s.winner
    if winner is not None:
        st.say(f"win.{winner}")
    st.effects.append(GameOver(winner=winner))


def vote_done(st: Step) -> None:
    """A single-vote scenario: the vote is over, and so is the state."""
    st.s.outcome = Outcome(termination=Termination.VOTE_DONE, winner=None)
    st.s.phase = Phase.OVER
    st.wait()


def on_end_game(st: Step, event: ev.EndGame) -> None:
    if event.winner is None:
        winner = None
    else:
        try:
            winner = Winner(event.winner)
        except ValueError:
            raise InvalidAction(
                "bad_winner", f"winner must be one of {[w.value for w in Winner]} or null"
            ) from None
    st.s.outcome = Outcome(termination=Termination.HOST, winner=winner)
    game_over(st)
