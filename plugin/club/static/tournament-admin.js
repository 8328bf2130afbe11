// The organiser's page (issue 34): /club/organiser lists the club's tournaments and
// creates one (its players from the roster, tables, games per player, the rules preset);
// /club/organiser/{id} seats it, hands out the players' tournament links, starts and
// finishes its rounds (each table made and hosted by the server) and leads to the judges'
// board. An admin's personal link (kept by the "me" page) or the admin key (typed here,
// kept for this tab only) is sent with every change; the server checks it for each one.

import { api, clearError, el, header, showError, stored, t } from "./club.js";
import { retitle, texts } from "./tournament-texts.js";

const tt = texts(t);
const parts = location.pathname.split("/").filter(Boolean);
const tid = parts.length > 2 ? decodeURIComponent(parts[2]) : null;
let tournament = null;
let listed = [];
let roster = [];
let links = null; // the links just issued: shown once
let started = null; // the last round started: its tables
window.__organiser = { get tournament() { return tournament; }, get links() { return links; }, get started() { return started; }, reload: () => load() };

header("organiser.title");
retitle(tt, "organiser.title");

function credential() {
  return sessionStorage.getItem("autohost.admin-key") || stored("autohost.club.admin");
}

async function act(path, body) {
  clearError();
  try {
    return await api(path, { token: credential(), method: "POST", body });
  } catch (error) {
    showError(error);
    return null;
  } finally {
    await load();
  }
}

function keyForm() {
  return el("form", { class: "inline no-print", id: "organiser-key", onsubmit: (event) => {
    event.preventDefault();
    sessionStorage.setItem("autohost.admin-key", event.target.key.value.trim());
    load();
  } }, el("label", {}, t("admin.key"), el("input", { name: "key", type: "password", autocomplete: "off" })),
  el("button", { type: "submit", text: t("admin.use") }));
}

function createForm() {
  const field = (name, label, attributes = {}) => el("label", {}, tt(label), el("input", { name, ...attributes }));
  const players = el("textarea", { name: "players", rows: 4, cols: 60 });
  return el("form", { class: "card", id: "tournament-new", onsubmit: async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const body = {
      name: form.get("name"), tables: Number(form.get("tables")), games: Number(form.get("games")),
      preset: form.get("preset") || "classic",
      players: String(form.get("players")).split(/[,\n]/).map((s) => s.trim()).filter(Boolean),
    };
    const made = await act("tournaments", body);
    if (made) location.assign(new URL(`organiser/${encodeURIComponent(made.id)}`, new URL("../", import.meta.url)).href);
  } },
  el("h2", { text: tt("organiser.new") }),
  el("div", { class: "inline" }, field("name", "organiser.name", { required: true, maxlength: 60 }),
    field("tables", "organiser.tables", { type: "number", min: 1, value: 1 }),
    field("games", "organiser.games", { type: "number", min: 1, value: 1 }),
    field("preset", "organiser.preset", { value: "classic" })),
  el("label", {}, tt("organiser.players"), players),
  el("button", { type: "button", id: "all-roster", text: tt("organiser.roster"), onclick: () => {
    players.value = roster.map((p) => p.nick).join(", ");
  } }),
  " ", el("button", { type: "submit", text: tt("organiser.create") }));
}

function listView() {
  return [keyForm(), createForm(), el("h2", { text: tt("organiser.list") }),
    el("ul", { id: "tournaments" }, ...listed.map((item) => el("li", {},
      el("a", { href: `organiser/${encodeURIComponent(item.id)}`, text: item.name }), ` · ${item.players}`)))];
}

function roundRow(stage, index, number, tables) {
  const state = stage.finished.includes(number) ? "finished" : stage.started.includes(number) ? "playing" : "waiting";
  const nick = (i) => tournament.nicks[stage.seated[i]] ?? stage.seated[i];
  const path = `tournaments/${encodeURIComponent(tournament.id)}`;
  return el("li", { class: "round", "data-round": number, "data-state": state },
    `${tt("organiser.round", { round: number + 1 })} · ${tt(`organiser.${state}`)} `,
    state === "waiting" ? el("button", { type: "button", class: "start-round", text: tt("organiser.start"), onclick: async () => {
      const answer = await act(`${path}/start`, { stage: index, round: number });
      if (answer) { started = answer; render(); }
    } }) : null,
    state === "playing" ? el("button", { type: "button", class: "finish-round", text: tt("organiser.finish"), onclick: () => act(`${path}/finish`, { stage: index, round: number }) }) : null,
    el("ol", {}, ...tables.map((seats) => el("li", { text: seats.map(nick).join(", ") }))));
}

function detailView() {
  if (!tournament) return [keyForm()];
  const path = `tournaments/${encodeURIComponent(tournament.id)}`;
  const stages = tournament.stages.map((stage, index) => el("section", { class: "card stage", "data-stage": index },
    el("h2", { text: `${stage.name}: ${stage.players} · ${stage.tables} · ${stage.games}` }),
    stage.seating.length
      ? el("p", { class: "muted", text: `${tt("organiser.cost")}: ${Object.entries(stage.cost).map(([k, v]) => `${k} ${Number(v).toFixed(1)}`).join(", ")}` })
      : el("button", { type: "button", class: "seat-stage", text: tt("organiser.seat"), onclick: () => act(`${path}/seat`, { stage: index, seconds: 10 }) }),
    el("ol", { class: "rounds" }, ...stage.seating.map((tables, number) => roundRow(stage, index, number, tables)))));
  return [keyForm(),
    el("p", {}, el("a", { id: "board-link", href: `../tournaments/${encodeURIComponent(tournament.id)}/board`, text: tt("board.title") })),
    el("button", { type: "button", id: "issue-links", text: tt("organiser.links"), onclick: async () => {
      const answer = await act(`${path}/links`, {});
      if (answer) { links = answer.links; render(); }
    } }),
    links ? el("table", { id: "links" }, el("tbody", {}, ...links.map((link) => el("tr", { "data-player": link.player },
      el("td", { text: link.nick }), el("td", { class: "link-out", text: link.link }))))) : null,
    ...stages];
}

function render() {
  document.getElementById("club-main").replaceChildren(...(tid ? detailView() : listView()));
}

async function load() {
  try {
    roster = await api("players");
    if (tid) {
      tournament = await api(`tournaments/${encodeURIComponent(tid)}`);
      tournament.nicks = Object.fromEntries(roster.map((p) => [p.id, p.nick]));
    } else {
      listed = await api("tournaments");
    }
  } catch (error) {
    showError(error);
  }
  render();
}

await load();
