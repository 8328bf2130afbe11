"""Ties: the defense speeches, the revote, a repeated tie, the lift question, and the live
host's tie dialogs (manual mode).

Rules implemented here:
- Seed 000 «Автокатастрофа» (lines 23-29): the tied candidates speak 30 s each, then a
  revote among them in which they do not vote; tied again → «Кто «ЗА» то, чтобы все
  голосуемые покинули игру?»: for > against, they all leave; an even split or no ballots,
  they stay.
- Seed 004 (lines 3-29): only those tied at the top stay; first tie → speeches («Захист»),
  a short pause, everyone votes again (not for himself); second tie → nobody leaves. Live
  host: the «Нічия» window (speeches | revote, default speeches), after the speeches he
  starts the revote; «Повторна нічия» (end). Closing the window takes the default.
- shared/conformance README: one who leaves during the procedure stays on the ballot but
  gets no speech: a seat out of the game when his defense would start is skipped.
- mafiaratings 7.17/7.18 (fiim): the same split twice → the lift question (more than half
  of the players in the game); fewer tied → another revote; 7.20: every player in the game
  tied again → nobody leaves (`all_tied_nobody_leaves`).
"""

from __future__ import annotations

from . import events as ev
from . import guards, voting
from .effects import CloseDialog, OpenDialog
from .errors import InvalidAction
from .modes import Choice, DialogKind, LiftPasses, RoundKind, TieAgain, VoteOutcome
from .state import Dialog, Phase, Round
from .step import Step, num, vote_of

_REVOTE, _LIFT = RoundKind.REVOTE, RoundKind.LIFT


def first_tie(st: Step, leaders: tuple[int, ...]) -> None:
    # Seed 004: only the candidates tied at the top stay on the ballot.
    vote_of(st).tied = leaders
    rules = st.rules
    if st.s.manual and rules.tie_dialog_options:
        open_dialog(st, DialogKind.TIE, leaders, rules.tie_dialog_options, rules.tie_dialog_default)
        return
    tie_speeches(st)


def repeated_tie(st: Step, r: Round, leaders: tuple[int, ...]) -> None:
    """A revote tied again: the same candidates (`repeat_tie`) or fewer (`narrower_tie`)."""
    s, rules, vote = st.s, st.rules, vote_of(st)
    same = set(leaders) == set(r.candidates)
    vote.tied = leaders
    if rules.all_tied_nobody_leaves and s.alive <= set(leaders):
        # mafiaratings 7.20: «If as a result of voting and then re-voting the table is shared
        # between all the players in the game, the night is announced. No one leaves.»
        st.say("tie.again")
        voting.finish_vote(st, VoteOutcome.NOBODY)
        return
    vote.again = rules.repeat_tie if same else rules.narrower_tie
    if s.manual and rules.repeat_tie_dialog_options:
        open_dialog(
            st,
            DialogKind.REPEAT_TIE,
            leaders,
            rules.repeat_tie_dialog_options,
            rules.repeat_tie_dialog_default,
        )
        return
    tie_again(st, vote.again)


def tie_again(st: Step, action: TieAgain) -> None:
    """Nobody leaves (seed 004), the lift question (seed 000), or a further round of
    speeches and revote among fewer candidates (mafiaratings 7.18)."""
    if action is TieAgain.NOBODY:
        st.say("tie.again")
        voting.finish_vote(st, VoteOutcome.NOBODY)
    elif action is TieAgain.LIFT:
        voting.open_round(st, _LIFT)
    else:
        tie_speeches(st)


def tie_speeches(st: Step) -> None:
    vote = vote_of(st)
    if not st.rules.tie_speeches:
        revote_after_pause(st)
        return
    # Seed 000: «на оправдание голосуемым дается по 30 секунд»; seed 004: «Нічия.
    # Кандидати говорять ще раз».
    st.say("tie.speeches", seats=list(vote.tied))
    vote.queue = vote.tied
    next_defense(st)


def next_defense(st: Step) -> None:
    s, rules, vote = st.s, st.rules, vote_of(st)
    # README: one who leaves during the procedure «gets no speech»: a seat no longer in the
    # game when his turn would start is skipped (auto and manual alike).
    while vote.queue and vote.queue[0] not in s.alive:
        vote.queue = vote.queue[1:]
    if vote.queue:
        seat, vote.queue = vote.queue[0], vote.queue[1:]
        seconds = rules.defense_seconds
        vote.speeches += ({"player": seat, "kind": "defense", "seconds": num(seconds)},)
        st.speech(Phase.DEFENSE, seat, seconds, "defense", "defense")
        return
    if s.manual and rules.host_starts_revote:
        # Seed 004, live host: «кожен ще раз говорить, потім ведучий запускає
        # переголосування»; seed 000 «Затем происходит повторное голосование» (classic).
        s.phase = Phase.AWAIT_REVOTE
        st.silence()
        st.wait()
        return
    revote_after_pause(st)


def revote_after_pause(st: Step) -> None:
    s = st.s
    st.silence()
    # Seed 004: «Перед цим є коротка пауза, щоб побачити, хто лишився».
    if st.rules.revote_pause_seconds > 0:
        s.phase = Phase.REVOTE_PAUSE
        st.timer(st.rules.revote_pause_seconds, "revote_pause")
        return
    start_revote(st)


def start_revote(st: Step) -> None:
    st.say("tie.revote", seats=list(vote_of(st).tied))
    voting.open_round(st, _REVOTE)


def resolve_lift(st: Step, r: Round) -> None:
    s = st.s
    yes, no = r.lift_tally()
    # Seed 000: «Если большинство голосует «ЗА» ... Если голоса делятся поровну, либо никто
    # не проголосовал, игроки остаются в игре»; fiim: more than half of the players in the game.
    by_ballots = st.rules.lift_passes is LiftPasses.MORE_FOR_THAN_AGAINST
    passes = yes > no if by_ballots else yes * 2 > len(s.alive)
    if passes:
        voting.eliminate(st, r.candidates)
        return
    st.say("lift.stay")
    voting.finish_vote(st, VoteOutcome.NOBODY)


# ---- the live host's dialogs -----------------------------------------------------------


def open_dialog(
    st: Step,
    kind: DialogKind,
    candidates: tuple[int, ...],
    options: tuple[Choice, ...],
    default: Choice,
) -> None:
    s = st.s
    s.dialog = Dialog(kind=kind, candidates=candidates, options=options, default=default)
    s.phase = Phase.DIALOG
    st.silence()
    st.wait()
    st.effects.append(
        OpenDialog(kind=kind, candidates=candidates, options=options, default=default)
    )


def on_choice(st: Step, event: ev.HostChoice) -> None:
    s = st.s
    try:
        choice = Choice(event.choice)
    except ValueError:
        raise InvalidAction(
            "bad_choice", f"unknown choice {event.choice!r}; one of {list(Choice)}"
        ) from None
    refusal = guards.host_choice(s, choice)
    if refusal is not None:
        raise refusal
    if s.phase is Phase.AWAIT_REVOTE:
        start_revote(st)
        return
    dialog = s.dialog
    assert dialog is not None
    # Seed 004: closing the window with nothing chosen takes the default.
    decide(st, Choice(dialog.default) if choice is Choice.CLOSE else choice)


def decide(st: Step, choice: Choice) -> None:
    st.s.dialog = None
    st.effects.append(CloseDialog())
    if choice is Choice.SPEECHES:
        tie_speeches(st)
    elif choice is Choice.REVOTE:
        start_revote(st)
    elif choice is Choice.LIFT:
        voting.open_round(st, _LIFT)
    else:  # end: «Завершити голосування» — nobody leaves
        st.say("tie.again")
        voting.finish_vote(st, VoteOutcome.NOBODY)


def on_manual(st: Step, event: ev.SetManual) -> None:
    s = st.s
    if s.manual == event.on:
        return
    s.manual = event.on
    if s.over:
        return
    st.say("manual.on" if event.on else "manual.off")
    if event.on:
        return
    # Handing the decisions back to the bot: it does what the automatic host would do.
    if s.phase is Phase.DIALOG and s.dialog is not None:
        if s.dialog.kind is DialogKind.TIE:
            decide(st, Choice.SPEECHES)
        else:
            s.dialog = None
            st.effects.append(CloseDialog())
            tie_again(st, vote_of(st).again)
    elif s.phase is Phase.AWAIT_REVOTE:
        revote_after_pause(st)
