// The judge's sheet (issue 33): the table's protocol per seat (role, how he left, fouls, the
// points the system gives on its own) and the judge's parts (extra points, each with a
// required comment; an auto-bonus removed with why; the best move corrected with why; a
// team disqualified with why). Signing makes the result final; an admin corrects it later
// with a reason. The server checks every part: this page only gathers them.

import { api, clearError, el, header, points, roleName, showError, stored, t, takeToken } from "./club.js";

const table = decodeURIComponent(location.pathname.split("/").pop());
const fresh = takeToken(); // the table's host link, from the console's end screen
if (fresh) sessionStorage.setItem(`autohost.sheet:${table}`, fresh);
const token = () => sessionStorage.getItem(`autohost.sheet:${table}`) || stored("autohost.club.judge")
  || sessionStorage.getItem("autohost.admin-key") || stored("autohost.club.admin");
const adminToken = () => sessionStorage.getItem("autohost.admin-key") || stored("autohost.club.admin");
let draft = null;

function bonusRow(list, bonus = { points: "", comment: "" }) {
  const row = el("div", { class: "bonus" },
    el("input", { type: "number", class: "bonus-points", step: draft.range.step, min: draft.range.min, max: draft.range.max, value: bonus.points, "aria-label": t("points") }),
    el("input", { type: "text", class: "bonus-comment", maxlength: 500, value: bonus.comment, placeholder: t("sheet.comment"), "aria-label": t("sheet.comment") }),
    el("button", { type: "button", text: "×", onclick: () => row.remove() }));
  list.append(row);
}

function seatRow(seat, game, sheet) {
  const out = game.seats[seat.seat - 1].out;
  const list = el("div", { class: "bonuses" });
  for (const bonus of sheet.extra?.[String(seat.seat)] ?? []) bonusRow(list, bonus);
  const removed = sheet.auto_bonus_removed?.[String(seat.seat)];
  const noAuto = el("input", { type: "text", class: "no-auto", maxlength: 500, value: removed ?? "", placeholder: t("sheet.remove_auto"), "aria-label": t("sheet.remove_auto") });
  return el("tr", { "data-seat": seat.seat },
    el("td", { text: seat.seat }), el("td", { text: seat.nick }), el("td", { text: roleName(seat.role) }),
    el("td", { text: out ?? "" }), el("td", { text: seat.fouls }),
    el("td", { text: points(seat.main) }), el("td", { class: "extra", text: points(seat.extra) }),
    el("td", { text: points(seat.best_move) }), el("td", { text: points(seat.penalty) }),
    el("td", { class: "seat-points", text: points(seat.points) }),
    el("td", { class: "judge" }, list,
      el("button", { type: "button", class: "add-bonus", text: t("sheet.add_bonus"), onclick: () => bonusRow(list) }),
      noAuto));
}

/** The judge's parts as the API takes them, read from the form. */
function gathered() {
  const sheet = { extra: {}, auto_bonus_removed: {} };
  for (const row of document.querySelectorAll("tr[data-seat]")) {
    const seat = row.dataset.seat;
    const bonuses = [...row.querySelectorAll(".bonus")].map((b) => ({
      points: Number(b.querySelector(".bonus-points").value),
      comment: b.querySelector(".bonus-comment").value,
    }));
    if (bonuses.length) sheet.extra[seat] = bonuses;
    const why = row.querySelector(".no-auto").value.trim();
    if (why) sheet.auto_bonus_removed[seat] = why;
  }
  const best = document.getElementById("best-correct");
  if (best && best.value !== "") sheet.best_move = { correct: Number(best.value), reason: document.getElementById("best-reason").value };
  const team = document.getElementById("team-dq").value;
  if (team) sheet.team_disqualified = { team, reason: document.getElementById("team-reason").value };
  return sheet;
}

function render() {
  const { game, sheet, seats, signed } = draft;
  header("sheet.title");
  const th = (...keys) => el("tr", {}, ...keys.map((k) => el("th", { text: t(k) })));
  const best = game.best_move;
  const bestPart = best ? el("p", {}, `${t("sheet.best_move")} (${t("seat")} ${best.by}: ${best.correct}) `,
    el("select", { id: "best-correct" }, el("option", { value: "", text: "—" }),
      ...[0, 1, 2, 3].map((n) => el("option", { value: n, text: n, selected: sheet.best_move?.correct === n }))),
    el("input", { id: "best-reason", type: "text", placeholder: t("sheet.reason"), value: sheet.best_move?.reason ?? "" })) : null;
  const team = el("p", {}, `${t("sheet.team_dq")} `,
    el("select", { id: "team-dq" }, el("option", { value: "", text: "—" }),
      ...["city", "mafia"].map((x) => el("option", { value: x, text: x, selected: sheet.team_disqualified?.team === x }))),
    el("input", { id: "team-reason", type: "text", placeholder: t("sheet.reason"), value: sheet.team_disqualified?.reason ?? "" }));
  const actions = signed
    ? el("div", { class: "toolbar" },
      el("span", { class: "ok", id: "signed", text: t("sheet.signed") }),
      adminToken() ? el("input", { id: "correct-reason", type: "text", placeholder: t("sheet.reason") }) : null,
      adminToken() ? el("button", { type: "button", id: "correct", text: t("sheet.correct"), onclick: correct }) : null)
    : el("div", { class: "toolbar" },
      el("label", {}, `${t("season")} `, el("input", { id: "season", value: draft.season, size: 8 })),
      el("button", { type: "button", id: "sign", text: t("sheet.sign"), onclick: sign }));
  const history = (draft.history ?? []).map((h) => el("li", {
    text: `${new Date(h.wall * 1000).toLocaleString(t.lang)} · ${h.what} · ${t("sheet.by")} ${h.by}${h.reason ? ` · ${h.reason}` : ""}`,
  }));
  const parts = [
    el("p", { id: "result", text: `${game.date ?? ""} · ${t(`winner.${game.winner}`)}` }),
    el("table", { id: "sheet" }, el("thead", {}, th("seat", "nick", "role", "out", "fouls", "main", "extra", "best_move", "penalty", "points", "sheet.extra")),
      el("tbody", {}, ...seats.map((seat) => seatRow(seat, game, sheet)))),
    bestPart, team, actions,
    history.length ? el("h2", { text: t("sheet.history") }) : null,
    history.length ? el("ol", { id: "history" }, ...history) : null,
  ];
  document.getElementById("club-main").replaceChildren(...parts.filter((part) => part != null));
  if (signed && !adminToken()) { // final: only an admin corrects it
    for (const input of document.querySelectorAll("#club-main input, #club-main select, #club-main button")) {
      input.disabled = true;
    }
  }
}

async function sign() {
  clearError();
  try {
    const season = document.getElementById("season").value.trim();
    draft = await api(`sheet/${encodeURIComponent(table)}`, { token: token(), method: "POST", body: { sheet: gathered(), season } });
    render();
  } catch (error) { showError(error); }
}

async function correct() {
  clearError();
  try {
    const reason = document.getElementById("correct-reason").value;
    await api(`sheet/${encodeURIComponent(table)}/correct`, { token: adminToken(), method: "POST", body: { sheet: gathered(), reason } });
    await load();
  } catch (error) { showError(error); }
}

async function load() {
  clearError();
  try {
    draft = await api(`sheet/${encodeURIComponent(table)}`, { token: token() });
    render();
  } catch (error) {
    header("sheet.title");
    showError(error);
  }
}

window.__sheet = { get draft() { return draft; }, reload: load };
await load();
