// The judges' board (issue 34): every table of the rounds being played, at a glance (phase,
// day, who speaks, time left, who has joined, a table waiting for a decision or in
// trouble), refreshed every two seconds, with each table's console (its host link, opened
// in a new tab: the console takes the game over in manual mode) and, for a seat whose
// player has not joined, replacing him or starting the table without him. A judge's or an
// admin's personal link (kept by the "me" page) or the admin key (typed here, kept for
// this tab only) is sent with every call; the server checks it for each one.

import { api, clearError, el, header, showError, stored, t } from "./club.js";
import { retitle, texts } from "./tournament-texts.js";

const tt = texts(t);
const parts = location.pathname.split("/").filter(Boolean);
const tid = decodeURIComponent(parts[parts.length - 2] ?? "");
const REFRESH_MS = 2000;
let board = null;
window.__board = { get board() { return board; }, reload: () => load() };

header("board.title");
retitle(tt, "board.title");

function credential() {
  return sessionStorage.getItem("autohost.admin-key") || stored("autohost.club.judge") || stored("autohost.club.admin");
}

async function act(path, body) {
  clearError();
  try {
    const answer = await api(`tournaments/${encodeURIComponent(tid)}/${path}`, { token: credential(), method: "POST", body });
    await load();
    return answer;
  } catch (error) {
    showError(error);
    return null;
  }
}

async function openConsole(table) {
  clearError();
  try {
    const answer = await api(`tables/${encodeURIComponent(table)}/host`, { token: credential(), method: "POST" });
    window.open(answer.link, "_blank", "noopener");
  } catch (error) { showError(error); }
}

function clock(seconds) {
  if (seconds == null) return "";
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function seatLine(table, seat) {
  const state = seat.absent ? "absent" : seat.joined === true ? "joined" : seat.joined === false ? "missing" : "unknown";
  const item = el("li", { class: `seat seat-${state}`, "data-seat": seat.seat, "data-state": state },
    `${seat.seat}. ${seat.nick}`,
    seat.absent ? el("span", { class: "muted", text: ` (${tt("board.started_without")})` }) : null);
  if (state === "missing" && table.where === "here" && !table.over) {
    const who = el("input", { type: "text", class: "replace-by", "aria-label": tt("board.by"), placeholder: tt("board.by") });
    item.append(" ", who,
      el("button", { type: "button", class: "replace", text: tt("board.replace"),
        onclick: () => act("replace", { table: table.id, seat: seat.seat, player: who.value.trim() }) }),
      el("button", { type: "button", class: "without", text: tt("board.without"),
        onclick: () => act("absent", { table: table.id, seat: seat.seat }) }));
  }
  return item;
}

function tableCard(table) {
  const facts = [];
  if (table.where === "here" && table.phase) {
    facts.push(`${tt("board.phase")}: ${table.phase}`, `${tt("board.day")}: ${table.day}`);
    if (table.speaker) facts.push(`${tt("board.speaks")}: ${table.speaker}`);
    if (table.left != null) facts.push(`${tt("board.left")}: ${clock(table.left)}`);
    if (table.paused) facts.push(tt("board.paused"));
    if (table.over) facts.push(tt("board.over"));
  } else if (table.where === "elsewhere") {
    facts.push(tt("board.elsewhere", { server: table.server }));
  } else if (table.where === "missing") {
    facts.push(tt("board.missing"));
  } else if (table.where === "archived" && table.over) {
    facts.push(tt("board.over"));
  }
  const joined = table.seats.filter((s) => s.joined === true).length;
  const card = el("section", { class: "card board-table", "data-table": table.id, "data-where": table.where },
    el("h2", { text: `${tt("board.table")} ${table.table} · ${table.id}` }),
    el("p", { class: "facts", text: facts.join(" · ") }),
    table.where === "here" && table.phase ? el("p", { class: "muted", text: `${tt("board.present")}: ${joined}/${table.seats.length}` }) : null,
    table.decision ? el("p", { class: "decision ok", text: `${tt("board.decision")}: ${table.decision}` }) : null,
    table.trouble.length ? el("p", { class: "trouble error", text: `${tt("board.trouble")}: ${table.trouble.join(", ")}` }) : null,
    el("ol", { class: "seats" }, ...table.seats.map((seat) => seatLine(table, seat))),
    table.where === "here" ? el("button", { type: "button", class: "console", text: tt("board.console"), onclick: () => openConsole(table.id) }) : null);
  return card;
}

function keyForm() {
  const input = el("input", { type: "password", id: "board-key", "aria-label": tt("board.key"), placeholder: tt("board.key") });
  return el("form", { class: "inline card", id: "board-login", onsubmit: (event) => {
    event.preventDefault();
    sessionStorage.setItem("autohost.admin-key", input.value.trim());
    load();
  } }, input, el("button", { type: "submit", text: tt("board.use") }));
}

function render() {
  const main = document.getElementById("club-main");
  if (!board) {
    main.replaceChildren(keyForm());
    return;
  }
  const sections = board.rounds.map((round) => el("div", { class: "board-round", "data-round": round.round },
    el("h2", { text: tt("board.round", { round: round.round + 1, stage: round.stage_name }) },
      " ", el("button", { type: "button", class: "play-round", text: tt("board.play"),
        onclick: () => act("play", { stage: round.stage, round: round.round }) })),
    ...round.tables.map(tableCard)));
  main.replaceChildren(el("p", { class: "club-name", text: board.name }),
    ...(sections.length ? sections : [el("p", { class: "muted", id: "board-none", text: tt("board.none") })]));
}

async function load() {
  if (!credential()) { board = null; render(); return; }
  try {
    board = await api(`tournaments/${encodeURIComponent(tid)}/board`, { token: credential() });
  } catch (error) {
    if (error.status === 401 || error.status === 403) { board = null; sessionStorage.removeItem("autohost.admin-key"); }
    showError(error);
  }
  render();
}

await load();
setInterval(() => {
  if (board && !document.querySelector("#club-main input:focus")) load();
}, REFRESH_MS);
