// A season's standings (issue 33): the scoring system's columns and each player's rating,
// sortable by any column (click its header), printable, and as CSV. A tournament game whose
// judges' extra points are hidden (issue 34) counts without them here, and the page says so;
// ?view=judges shows them to a judge or an admin (club.js judgesToken).

import { api, clearError, el, header, judgesToken, judgesView, points, root, showError, t } from "./club.js";

const POINT_COLUMNS = new Set(["main", "extra", "best_move", "penalty", "ci", "total", "rating"]);
let document_ = null;
let sort = { key: "rank", descending: false };
const params = new URLSearchParams(location.search);

function cell(row, key) {
  if (key === "nick") {
    return el("td", {}, el("a", { href: new URL(`players/${encodeURIComponent(row.player)}`, root).href, text: row.nick }));
  }
  return el("td", { text: POINT_COLUMNS.has(key) ? points(row[key]) : String(row[key]) });
}

function sorted(rows) {
  const { key, descending } = sort;
  const value = (row) => row[key];
  return [...rows].sort((a, b) => {
    const x = value(a), y = value(b);
    const order = typeof x === "string" ? x.localeCompare(y) : x - y;
    return (descending ? -order : order) || a.rank - b.rank;
  });
}

function render() {
  const main = document.getElementById("club-main");
  if (!document_) return;
  const { columns, rows, seasons, season, system, games, extras_hidden: hidden } = document_;
  const picker = el("select", { id: "season", onchange: (e) => {
    params.set("season", e.target.value);
    history.replaceState(null, "", `?${params}`);
    load();
  } }, ...seasons.map((s) => el("option", { value: s, selected: s === season, text: s })));
  const csv = new URL(`../api/club/standings.csv?season=${encodeURIComponent(season)}`, root).href;
  const head = el("tr", {}, ...columns.map((key) => el("th", {
    "data-key": key, scope: "col", text: t(key),
    "aria-sort": sort.key === key ? (sort.descending ? "descending" : "ascending") : null,
    onclick: () => {
      sort = { key, descending: sort.key === key ? !sort.descending : key !== "rank" && key !== "nick" };
      render();
    },
  })));
  const body = sorted(rows).map((row) => el("tr", { "data-player": row.player }, ...columns.map((key) => cell(row, key))));
  main.replaceChildren(
    el("div", { class: "toolbar" },
      el("label", {}, `${t("season")} `, picker),
      el("button", { type: "button", id: "print", onclick: () => window.print(), text: t("print") }),
      el("a", { href: csv, id: "csv", download: `standings-${season}.csv`, text: t("csv") })),
    el("p", { class: "muted", text: `${system} · ${t("season")} ${season} · ${t("games")}: ${games}` }),
    ...(judgesView ? [el("p", { class: "ok", id: "judges-view", text: t("judges_view") })] : []),
    ...(hidden ? [el("p", { class: "hidden-extras", id: "hidden-extras", text: t("club_extras_hidden", { count: hidden }) })] : []),
    el("table", { id: "standings" }, el("thead", {}, head), el("tbody", {}, ...body)),
  );
}

async function load() {
  clearError();
  try {
    const season = params.get("season");
    document_ = await api(`standings${season ? `?season=${encodeURIComponent(season)}` : ""}`, { token: judgesToken() });
    render();
  } catch (error) {
    if (error.code === "no_games") {
      document.getElementById("club-main").replaceChildren(el("p", { text: t("no_games") }));
    } else showError(error);
  }
}

header("standings.title");
window.__standings = { get document() { return document_; }, reload: load };
await load();
