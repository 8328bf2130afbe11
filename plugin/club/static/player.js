// A player's page (issue 33): his games with their points, his sums per role (games, wins,
// killed first, best-move accuracy, fouls, points) and his rating after each game, drawn as
// a small inline SVG chart. A tournament game whose judges' extra points are hidden (issue 34)
// counts without them here, marked; ?view=judges shows them to a judge or an admin.

import { api, clearError, el, header, judgesToken, judgesView, points, root, roleName, showError, t } from "./club.js";

const ref = decodeURIComponent(location.pathname.split("/").pop());
const params = new URLSearchParams(location.search);
let page = null;

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

/** The rating after each game: a polyline over the games, with the first and last values. */
export function ratingChart(history) {
  const width = 640, height = 180, pad = 28;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", id: "rating-chart", role: "img" });
  if (history.length === 0) return chart;
  const values = history.map((h) => h.rating);
  const low = Math.min(...values), high = Math.max(...values);
  const span = high - low || 1;
  const x = (i) => pad + (history.length === 1 ? 0 : (i * (width - 2 * pad)) / (history.length - 1));
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / span;
  const line = svg("polyline", { points: values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") });
  chart.append(line);
  values.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3 });
    const title = svg("title");
    title.textContent = `${history[i].game_id}: ${v.toFixed(2)}`;
    dot.append(title);
    chart.append(dot);
  });
  for (const [value, at] of [[high, pad - 8], [low, height - pad + 16]]) {
    const label = svg("text", { x: 2, y: at });
    label.textContent = value.toFixed(2);
    chart.append(label);
  }
  const title = svg("title");
  title.textContent = t("rating_chart");
  chart.prepend(title);
  return chart;
}

function render() {
  const { player, rating, games, roles, seasons, season, history, extras_hidden: hidden } = page;
  header("player.title");
  document.querySelector("#club-header h1").textContent = player.nick;
  const picker = el("select", { id: "season", onchange: (e) => {
    params.set("season", e.target.value);
    history_(); load();
  } }, el("option", { value: "all", text: t("all_seasons"), selected: season === "all" }),
  ...seasons.map((s) => el("option", { value: s, selected: s === season, text: s })));
  const roleRows = Object.entries(roles).map(([role, sums]) => el("tr", { "data-role": role },
    el("td", { text: roleName(role) }), el("td", { text: sums.games }), el("td", { text: sums.wins }),
    el("td", { text: sums.first_killed }),
    el("td", { text: sums.best_move_accuracy == null ? "—" : `${Math.round(sums.best_move_accuracy * 100)}%` }),
    el("td", { text: sums.fouls }), el("td", { text: points(sums.points) })));
  const gameRows = games.map((g) => el("tr", { "data-game": g.game_id, class: g.extras_hidden ? "hidden-extras" : null },
    el("td", { text: g.date }),
    el("td", {}, el("a", { href: new URL(`../api/club/games/${encodeURIComponent(g.game_id)}.json`, root).href, text: g.game_id })),
    el("td", { text: g.seat }), el("td", { text: roleName(g.role) }),
    el("td", { class: g.won ? "won" : "lost", text: t(g.won ? "won" : "lost") }),
    el("td", { class: "points", text: g.extras_hidden ? `${points(g.points)}*` : points(g.points),
      title: g.extras_hidden ? t("extras_hidden_game") : null }),
    el("td", { text: g.rating == null ? "—" : points(g.rating) })));
  const th = (...keys) => el("tr", {}, ...keys.map((k) => el("th", { text: t(k) })));
  document.getElementById("club-main").replaceChildren(
    el("p", { class: "muted", text: [player.name, player.city, player.club].filter(Boolean).join(" · ") }),
    el("p", {}, `${t("rating")}: `, el("strong", { id: "rating", text: points(rating) })),
    el("div", { class: "toolbar" }, el("label", {}, `${t("season")} `, picker)),
    ...(judgesView ? [el("p", { class: "ok", id: "judges-view", text: t("judges_view") })] : []),
    ...(hidden ? [el("p", { class: "hidden-extras", id: "hidden-extras", text: `* ${t("club_extras_hidden", { count: hidden })}` })] : []),
    el("h2", { text: t("rating_chart") }), ratingChart(history),
    el("h2", { text: t("per_role") }),
    el("table", { id: "roles" }, el("thead", {}, th("role", "games", "wins", "first_killed", "best_move_accuracy", "fouls", "points")), el("tbody", {}, ...roleRows)),
    el("h2", { text: t("games") }),
    el("table", { id: "games" }, el("thead", {}, th("date", "game", "seat", "role", "sheet.result", "points", "rating")), el("tbody", {}, ...gameRows)),
  );
}

function history_() {
  window.history.replaceState(null, "", `?${params}`);
}

async function load() {
  clearError();
  try {
    const season = params.get("season");
    page = await api(`players/${encodeURIComponent(ref)}/page${season ? `?season=${encodeURIComponent(season)}` : ""}`, { token: judgesToken() });
    render();
  } catch (error) {
    header("player.title");
    showError(error);
  }
}

window.__player = { get page() { return page; }, reload: load };
await load();
