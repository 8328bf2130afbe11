// A tournament's public standings (issue 34), for players and streams: the final results,
// each stage's standings and the overall ones, in the club's language; it reads
// /api/club/tournaments/{id}/standings again every few seconds, so a signed sheet shows by
// itself. The judges' hidden extra points are not in what the public is sent; a judge or
// admin sees them with ?view=judges (his personal link's token kept by this browser, or the
// admin key), never by default: a judge's browser may be the one streaming the page.

import { api, clearError, el, header, judgesToken, judgesView as judges, points, root, showError, t } from "./club.js";

const REFRESH_MS = 3000;
const POINT_COLUMNS = new Set(["main", "extra", "best_move", "penalty", "ci", "total"]);
const TABLE_COLUMNS = ["place", "nick", "games", "wins", "main", "extra", "best_move", "penalty", "ci", "total"];
const parts = location.pathname.split("/").filter(Boolean);
const id = parts.at(-1) === "tournaments" ? null : decodeURIComponent(parts.at(-1) ?? "");
let standings = null;
let loads = 0;

function table(tableId, columns, rows) {
  const head = el("tr", {}, ...columns.map((key) => el("th", { "data-key": key, scope: "col", text: t(key) })));
  const body = rows.map((row) => el("tr", { "data-player": row.player },
    ...columns.map((key) => el("td", {
      text: POINT_COLUMNS.has(key) ? points(row[key]) : key === "stage_reached" ? row[key] : String(row[key]),
    }))));
  return el("table", { id: tableId, class: "standings" }, el("thead", {}, head), el("tbody", {}, ...body));
}

function render() {
  const main = document.getElementById("club-main");
  const doc = standings;
  const url = (kind) => new URL(`../api/club/tournaments/${encodeURIComponent(doc.id)}/standings.${kind}`, root).href;
  const sections = [
    el("div", { class: "toolbar no-print" },
      el("button", { type: "button", id: "print", onclick: () => window.print(), text: t("print") }),
      el("a", { href: url("csv"), id: "csv", download: `standings-${doc.id}.csv`, text: t("csv") }),
      el("a", { href: url("json"), id: "json", text: t("json") })),
    el("p", { class: "muted", id: "tie-breaks",
      text: `${doc.system} · ${t("tie_breaks", { list: doc.tie_breaks.map((k) => t(k)).join(", ") })}` }),
  ];
  for (const game of doc.unscored ?? []) {
    sections.push(el("p", { class: "error unscored", text: t("unscored", { game: game.game_id, reason: game.reason }) }));
  }
  const played = doc.stages.filter((stage) => stage.games > 0);
  if (judges) sections.push(el("p", { class: "ok", id: "judges-view", text: t("judges_view") }));
  if (!played.length) sections.push(el("p", { id: "no-games", text: t("no_tournament_games") }));
  if (doc.results.length) {
    sections.push(el("h2", { text: t("results") }),
      table("results", ["place", "nick", "stage_reached", "total"], doc.results));
  }
  for (const stage of [...played].reverse()) {
    sections.push(el("h2", { text: stage.name }),
      el("p", { class: "muted", text: t("signed_games", { games: stage.games, tables: stage.tables }) }));
    if (stage.extras_hidden) sections.push(el("p", { class: "hidden-extras", text: t("extras_hidden") }));
    sections.push(table(`stage-${stage.index}`, TABLE_COLUMNS, stage.rows));
  }
  if (played.length > 1) {
    sections.push(el("h2", { text: t("overall") }), table("overall", TABLE_COLUMNS, doc.overall.rows));
  }
  main.replaceChildren(...sections);
  document.querySelector("#club-header h1").textContent = `${doc.name} · ${t("tournament.title")}`;
}

async function load() {
  try {
    standings = await api(`tournaments/${encodeURIComponent(id)}/standings`, { token: judgesToken() });
    loads += 1;
    clearError();
    render();
  } catch (error) {
    showError(error);
  }
}

/** /club/tournaments: the club's tournaments, each a link to its standings. */
async function list() {
  header("tournaments_link");
  try {
    const tournaments = await api("tournaments");
    document.getElementById("club-main").replaceChildren(el("ul", { id: "tournaments" },
      ...tournaments.map((one) => el("li", {}, el("a", {
        href: new URL(`tournaments/${encodeURIComponent(one.id)}`, root).href, text: one.name,
      }), ` · ${one.stages.join(" → ")} · ${one.players}`))));
  } catch (error) {
    showError(error);
  }
}

if (id === null) {
  await list();
} else {
  header("tournament.title");
  window.__tournament = { get document() { return standings; }, get loads() { return loads; }, reload: load };
  await load();
  setInterval(() => { if (!document.hidden) load(); }, REFRESH_MS);
}
