// The player widget: one seat's page in the call (issue 6).
//
// Everything it shows comes from the view the server sends (plugin/host/views.py: the
// engine's seat view plus the table's meta); everything it does is one protocol message.
// The page never decides a rule: a button it shows may still be refused, and the refusal
// is shown for a few seconds.

import { startAudio } from "./av.js";
import { $, startPage } from "./page.js";
import { isSpeechOf } from "./speaking.js";
import { dayTitle, phaseTitle, renderTiles, toast } from "./tiles.js";

let view = null;
let voted = null; // the candidate this page voted for in the open round (local echo)
let votedRound = null;
let bestMove = [];
let audio = null;
let mediaStarted = false;

// The token, the socket, the texts, the connection badge and the clock (page.js).
const { token, tableId, t, countdown, send, renderStatus, renderClock, startVideo, serverBase } = await startPage({
  debugName: "__widget", // window.__widget: tests and debugging
  onView: (next) => receive(next),
  title: "player.title",
});

function receive(next) {
  view = next;
  const round = view.vote?.round;
  const roundKey = round ? `${view.day}/${round.number}/${round.kind}` : null;
  if (roundKey !== votedRound) {
    voted = null;
    votedRound = roundKey;
  }
  if (view.me?.action !== "best_move") bestMove = [];
  render();
  startMedia();
  if (audio) audio.setSending(view.speakers.includes(view.me?.seat)).catch(() => {});
}

function startMedia() {
  if (mediaStarted || !view?.me) return;
  mediaStarted = true;
  const seat = view.me.seat;
  startAudio({
    tableId,
    token,
    audio: $("room-audio"),
    base: serverBase, // after a failover: the server that hosts the table now
    onBlocked: () => showSoundButton(),
    onNoMicrophone: (error) => toast($("toast"), t("media.no_mic", { message: error.message }), 8000),
  })
    .then((room) => {
      audio = room;
      return room.setSending(view.speakers.includes(seat));
    })
    .catch((error) => toast($("toast"), t("media.error", { message: error.message }), 8000));
  startVideo(seat);
}

function showSoundButton() {
  const button = $("sound");
  button.textContent = t("btn.enable_sound");
  button.hidden = false;
  button.onclick = () => {
    $("room-audio").play().then(() => (button.hidden = true)).catch(() => {});
  };
}

function buttonsFor(seat) {
  const me = view.me ?? {};
  const round = view.vote?.round;
  const alive = view.alive.includes(seat);
  const buttons = [];
  if (round?.open && round.kind !== "lift" && me.can_vote && seat !== me.seat) {
    const onBallot = round.candidates.includes(seat);
    const calling = round.calling;
    const mine = !round.waiting.includes(me.seat); // voted already
    if (onBallot && (calling == null || calling === seat) && !mine) {
      buttons.push({
        label: t("btn.vote"),
        className: "vote-btn",
        onClick: () => {
          voted = seat;
          send("vote", { candidate: seat });
          render();
        },
      });
    }
  }
  // me.may_nominate: only in his own regular speech, before he has nominated (the view).
  if (me.may_nominate && alive && seat !== me.seat) {
    const nominated = new Set((view.nominations ?? []).map(([, target]) => target));
    if (!nominated.has(seat)) {
      buttons.push({
        label: t("btn.nominate"),
        className: "nominate-btn",
        onClick: () => send("nominate", { target: seat }),
      });
    }
  }
  if (["shoot", "don_check", "sheriff_check"].includes(me.action) && alive) {
    if (me.action === "shoot" || seat !== me.seat) {
      buttons.push({
        label: t(me.action === "shoot" ? "btn.shoot" : "btn.check"),
        className: `night-btn ${me.action}-btn`,
        onClick: () => send(me.action, { target: seat }),
      });
    }
  }
  if (me.action === "best_move" && seat !== me.seat) {
    const picked = bestMove.includes(seat);
    buttons.push({
      label: picked ? `✓ ${t("btn.pick")}` : t("btn.pick"),
      className: `pick-btn${picked ? " picked" : ""}`,
      onClick: () => {
        bestMove = picked ? bestMove.filter((s) => s !== seat) : [...bestMove, seat].slice(-3);
        render();
      },
    });
  }
  return buttons;
}

function render() {
  if (!view) return;
  const me = view.me ?? {};
  $("phase").textContent = phaseTitle(view, t);
  $("day").textContent = dayTitle(view, t);
  $("paused").hidden = !view.table?.paused;
  $("paused").textContent = t("paused");
  renderStatus();
  renderTiles($("tiles"), view, {
    t,
    me: me.seat,
    seconds: countdown.seconds(),
    voted,
    roleOf: (seat) => (seat === me.seat ? me.role : view.roles?.[String(seat)] ?? (me.black_team?.includes(seat) ? "black" : null)),
    buttonsFor,
  });
  renderRole(me);
  renderActions(me);
  renderClock();
}

function renderRole(me) {
  const card = $("role-card");
  card.hidden = !me.seat;
  $("role-title").textContent = t("your_role");
  const role = $("role");
  role.textContent = me.role ? t(`role.${me.role}`) : t("role.none");
  role.dataset.role = me.role ?? "";
  const team = $("team");
  team.textContent = me.black_team ? `${t("black_team")}: ${me.black_team.join(", ")}` : "";
  const checks = $("checks");
  checks.replaceChildren(
    ...(me.checks ?? []).map((check) => {
      const item = document.createElement("li");
      item.className = `check ${check.result ? "positive" : "negative"}`;
      item.textContent = t(`check.${check.kind}.${check.result}`, { target: check.target });
      return item;
    }),
  );
}

function renderActions(me) {
  const card = $("action-card");
  const title = $("action-title");
  const info = $("action-info");
  const buttons = [];
  let heading = "";
  let text = "";
  const round = view.vote?.round;
  if (round?.open) {
    if (round.kind === "lift") {
      heading = t("lift.title", { seats: round.candidates.join(", ") });
      text = `${t("lift.for")}: ${round.lift?.for ?? 0} · ${t("lift.against")}: ${round.lift?.against ?? 0}`;
      if (me.can_vote && round.waiting.includes(me.seat)) {
        buttons.push(button(t("lift.for"), "lift-for", () => send("lift", { leave: true })));
        buttons.push(button(t("lift.against"), "lift-against", () => send("lift", { leave: false })));
      }
    } else {
      heading = round.number > 1 ? t("vote.revote") : t("vote.title");
      // me.can_vote: may still vote now (it turns false once the vote is cast).
      if (round.voters.includes(me.seat) && !round.waiting.includes(me.seat)) text = t("vote.done");
      else if (!me.can_vote) text = t("vote.no_vote");
      else text = t("vote.waiting", { n: round.waiting.length });
    }
  } else if (isSpeechOf(view, me.seat)) {
    heading = t(`phase.${view.phase}`);
    text = me.may_nominate ? t("action.your_speech") : "";
    if (me.action === "best_move") {
      text = t("action.best_move");
      const send3 = button(t("btn.best_move"), "best-move-send", () => send("best_move", { seats: bestMove }));
      send3.disabled = bestMove.length === 0;
      buttons.push(send3);
    }
    buttons.push(button(t("btn.pass"), "pass-btn", () => send("pass")));
  } else if (me.action) {
    heading = t(`action.${me.action}`);
  }
  card.hidden = !heading;
  title.textContent = heading;
  info.textContent = text;
  $("action-buttons").replaceChildren(...buttons);
}

function button(label, className, onClick) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = `action ${className}`;
  node.textContent = label;
  node.addEventListener("click", onClick);
  return node;
}
