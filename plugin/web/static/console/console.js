// The host console (issue 6): every seat with its role and fouls, corrections, the
// manual/auto switch, the tie dialog of seed 004, and one "next step" key (space).
//
// Like the widget it only shows the host view and sends protocol messages; the table
// decides. Closing the tie dialog (×, Escape) sends choice "close": the engine takes the
// dialog's default (seed 004: «закриття вікна» = the default option).

import { startLobbyPanel } from "../lobby/panel.js";
import { startAudio } from "../widget/av.js";
import { $, startPage } from "../widget/page.js";
import { dayTitle, phaseTitle, renderTiles, toast, voteSummary } from "../widget/tiles.js";

const ARM_MS = 3000; // a destructive seat action needs a second click within this time

let view = null;
let armed = null; // "remove:3" while waiting for the confirming click
let armedTimer = null;
let mediaStarted = false;
let room = null;
let micOn = true;

// The token, the socket, the texts, the connection badge and the clock (widget/page.js).
const { token, tableId, t, countdown, send, renderStatus, renderClock, startVideo, serverBase } = await startPage({
  debugName: "__console", // window.__console: tests and debugging
  onView: (next) => receive(next),
  title: "console.title",
  onNextGame: (hostToken, table) => nextGame(hostToken, table),
});
// The lobby panel (issue 17): the invite link, who waits, seating, second devices.
const lobbyPanel = startLobbyPanel({
  root: $("lobby"), token, tableId, t,
  onError: (e) => toast($("toast"), t("error", {
    message: t.has(`refusal.${e.error}`) ? t(`refusal.${e.error}`) : e.message || e.error,
  })),
});
window.__lobbyPanel = lobbyPanel;

/** The next game with the same players (POST /api/tables/{id}/next, plugin/web/app.py):
 * a new table, a new deal. The server then moves every page of this table, this one too,
 * to its seat there over its socket. */
async function nextGame(hostToken, table) {
  const response = await fetch(new URL(`../../api/tables/${encodeURIComponent(table)}/next`, location.href), {
    method: "POST",
    headers: { Authorization: `Bearer ${hostToken}` },
  });
  if (!response.ok) {
    const body = await response.json().catch(() => ({}));
    const code = body.error ?? String(response.status);
    toast($("toast"), t("error", { message: t.has(`refusal.${code}`) ? t(`refusal.${code}`) : body.message ?? code }));
    throw new Error(code);
  }
}

function receive(next) {
  view = next;
  render();
  lobbyPanel.render(); // in the table's language
  if (!mediaStarted) {
    mediaStarted = true;
    // The host's microphone is always forwarded (the server's gate): he talks to the table.
    startAudio({ tableId, token, audio: $("room-audio"), base: serverBase })
      .then((joined) => {
        room = joined;
        return room.setSending(micOn);
      })
      .catch((error) => toast($("toast"), t("media.error", { message: error.message }), 8000));
    startVideo("host");
  }
}

function arm(key, onConfirm) {
  if (armed === key) {
    armed = null;
    clearTimeout(armedTimer);
    onConfirm();
  } else {
    armed = key;
    clearTimeout(armedTimer);
    armedTimer = setTimeout(() => {
      armed = null;
      render();
    }, ARM_MS);
  }
  render();
}

/** Whether the table would accept this console action now (the host view's `controls`,
 * plugin/host/views.py: the page keeps no list of phases). */
function allowed(kind) {
  return (view?.controls ?? []).includes(kind);
}

function buttonsFor(seat) {
  const alive = view.alive.includes(seat);
  if (!alive) return [];
  const removeKey = `remove:${seat}`;
  const dqKey = `disqualify:${seat}`;
  return [
    { command: "foul", label: t("console.foul"), title: t("fouls"), className: "foul-btn", onClick: () => send("foul", { seat }) },
    {
      command: "remove",
      label: armed === removeKey ? t("console.sure") : t("console.remove"),
      title: t("console.remove"),
      className: `remove-btn${armed === removeKey ? " armed" : ""}`,
      onClick: () => arm(removeKey, () => send("remove", { seat })),
    },
    {
      command: "disqualify",
      label: armed === dqKey ? t("console.sure") : t("console.disqualify_short"),
      title: t("console.disqualify"),
      className: `disqualify-btn${armed === dqKey ? " armed" : ""}`,
      onClick: () => arm(dqKey, () => send("disqualify", { seat })),
    },
  ].filter((spec) => allowed(spec.command));
}

function render() {
  if (!view) return;
  $("phase").textContent = phaseTitle(view, t);
  $("day").textContent = dayTitle(view, t);
  $("paused").hidden = !view.table?.paused;
  $("paused").textContent = t("paused");
  $("manual").checked = Boolean(view.manual);
  $("manual").disabled = !allowed("manual");
  $("manual-label").textContent = t("console.manual");
  $("next-label").textContent = view.phase === "lobby" ? t("console.start") : t("console.next");
  $("next-hint").textContent = t("console.next_hint");
  $("next").disabled = !allowed("next");
  $("start-revote").hidden = !view.awaiting_revote;
  $("start-revote").textContent = t("console.start_revote");
  $("pause").textContent = t("console.pause");
  $("pause").disabled = !allowed("pause");
  $("resume").textContent = t("console.resume");
  $("resume").disabled = !allowed("resume");
  $("add-time").textContent = t("console.add_time");
  $("add-time").disabled = !allowed("add_time");
  $("end-speech").textContent = t("console.end_speech");
  $("end-speech").disabled = !allowed("end_speech");
  $("undo").textContent = t("console.undo");
  $("undo").disabled = !allowed("undo");
  $("end-game").textContent = armed === "end" ? t("console.confirm_end") : t("console.end_game");
  $("end-game").classList.toggle("armed", armed === "end");
  $("end-game").disabled = !allowed("end_game");
  $("host-mic").textContent = micOn ? t("console.mic_on") : t("console.mic_off");
  $("host-mic").setAttribute("aria-pressed", String(micOn));
  renderStatus();
  renderTiles($("tiles"), view, {
    t,
    me: null,
    seconds: countdown.seconds(),
    roleOf: (seat) => view.roles?.[String(seat)] ?? null,
    buttonsFor,
  });
  renderVote();
  renderDialog();
  renderStream();
  renderClock();
}

// "Stream with roles" (issue 17): the stream overlay shows roles and night actions, each
// after the delay; the server keeps the setting in the table's log and enforces the delay.
function renderStream() {
  const streaming = view.streaming ?? { on: false, delay: null };
  $("stream-label").textContent = t("console.stream");
  $("stream-delay-label").textContent = t("console.stream_delay");
  $("stream-hint").textContent = t(streaming.on ? "console.stream_on" : "console.stream_off",
    { seconds: streaming.delay ?? 0 });
  $("stream-on").checked = streaming.on;
  $("stream-on").disabled = Boolean(view.over);
  $("stream-delay").disabled = Boolean(view.over);
  if (streaming.on && document.activeElement !== $("stream-delay")) $("stream-delay").value = streaming.delay;
}

function sendStream() {
  const delay = Math.round(Number($("stream-delay").value));
  if (!Number.isFinite(delay) || delay < 0 || delay > 600) {
    toast($("toast"), t("console.stream_bad_delay"));
    return;
  }
  send("stream", { on: $("stream-on").checked, delay });
}

function renderVote() {
  const { title, info } = voteSummary(view, t);
  $("vote-title").textContent = title;
  $("vote-info").textContent = info;
}

function renderDialog() {
  const dialog = view.dialog;
  const backdrop = $("dialog-backdrop");
  backdrop.hidden = !dialog;
  if (!dialog) return;
  backdrop.dataset.kind = dialog.kind;
  $("dialog-title").textContent = t(`dialog.${dialog.kind}`);
  $("dialog-close").setAttribute("aria-label", t("close"));
  $("dialog-candidates").textContent = t("dialog.candidates", { seats: (dialog.candidates ?? []).join(", ") });
  $("dialog-options").replaceChildren(
    ...(dialog.options ?? []).map((option) => {
      const node = document.createElement("button");
      node.type = "button";
      node.dataset.choice = option;
      node.className = option === dialog.default ? "default" : "";
      node.textContent = t(`choice.${option}`);
      node.addEventListener("click", () => send("choice", { choice: option }));
      return node;
    }),
  );
  $("dialog-default").textContent = dialog.default ? t("dialog.default", { choice: t(`choice.${dialog.default}`) }) : "";
}

function next() {
  if (allowed("next")) send("next");
}

$("next").addEventListener("click", next);
$("start-revote").addEventListener("click", () => send("choice", { choice: "start_revote" }));
$("pause").addEventListener("click", () => send("pause"));
$("resume").addEventListener("click", () => send("resume"));
$("add-time").addEventListener("click", () => send("add_time", { seconds: 30 }));
$("end-speech").addEventListener("click", () => send("end_speech"));
$("undo").addEventListener("click", () => send("undo"));
$("end-game").addEventListener("click", () => arm("end", () => send("end_game", {})));
$("manual").addEventListener("change", (event) => send("manual", { on: event.target.checked }));
$("stream-on").addEventListener("change", sendStream);
$("stream-delay").addEventListener("change", () => {
  if ($("stream-on").checked) sendStream();
});
// The host's own microphone: the server always forwards it, so muting is the page's job.
$("host-mic").addEventListener("click", () => {
  micOn = !micOn;
  room?.setSending(micOn);
  render();
});
$("dialog-close").addEventListener("click", () => send("choice", { choice: "close" }));

// Text fields keep their space bar; everywhere else (a focused checkbox or button too) the
// space bar is the "next step" key and nothing else.
function typing(target) {
  if (target instanceof HTMLTextAreaElement) return true;
  return target instanceof HTMLInputElement && !["checkbox", "radio", "button"].includes(target.type);
}

document.addEventListener("keydown", (event) => {
  if (typing(event.target)) return;
  if (event.code === "Space" && event.repeat) {
    event.preventDefault();
  } else if (event.code === "Space") {
    event.preventDefault(); // not a click on the focused button as well
    next();
  } else if (event.key === "Escape" && view?.dialog) {
    send("choice", { choice: "close" });
  }
});

// A space on a focused button would also click it when the key comes up: not here.
document.addEventListener("keyup", (event) => {
  if (event.code === "Space" && !typing(event.target)) event.preventDefault();
});
