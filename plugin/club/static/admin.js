// The club's admin page (issue 33): the roster, each player's personal links (issue, re-issue,
// revoke) and rights (judge, admin). An admin's personal link (kept by the "me" page) or the
// machine's admin key (typed here, kept for this tab only) is sent with every change; the
// server checks it for each one.

import { api, clearError, club, el, header, root, showError, stored, t } from "./club.js";

let players = [];
let games = [];
let issued = null; // {nick, kind, link}: the link just issued, shown once

function credential() {
  return sessionStorage.getItem("autohost.admin-key") || stored("autohost.club.admin");
}

async function act(path, body) {
  clearError();
  try {
    const answer = await api(path, { token: credential(), method: "POST", body });
    await load();
    return answer;
  } catch (error) {
    showError(error);
    return null;
  }
}

function row(player) {
  const kind = el("select", { "aria-label": t("kind") },
    ...["player", "judge", "admin"].map((k) => el("option", { value: k, text: k })));
  const ref = encodeURIComponent(player.id);
  const right = (role, label) => player.roles.includes(role)
    ? el("button", { type: "button", class: `ungrant-${role}`, onclick: () => act(`players/${ref}/grant`, { role, revoke: true }), text: `${t("ungrant")} (${role})` })
    : el("button", { type: "button", class: `grant-${role}`, onclick: () => act(`players/${ref}/grant`, { role }), text: t(label) });
  return el("tr", { "data-player": player.id },
    el("td", { text: player.id }),
    el("td", {}, el("a", { href: new URL(`players/${ref}`, root).href, text: player.nick })),
    el("td", { text: player.name }), el("td", { text: player.city }),
    el("td", { text: player.roles.join(", ") }),
    el("td", {}, kind,
      el("button", { type: "button", class: "issue-link", onclick: async () => {
        const answer = await act(`players/${ref}/link`, { kind: kind.value });
        if (answer) { issued = { nick: player.nick, kind: kind.value, link: answer.link }; render(); }
      }, text: t("new_link") }),
      el("button", { type: "button", class: "revoke-link", onclick: () => act(`players/${ref}/revoke`, { kind: kind.value }), text: t("revoke") })),
    el("td", {}, right("judge", "grant"), right("admin", "grant_admin")));
}

function render() {
  const fields = ["nick", "name", "city", "club"].map((name) =>
    el("label", {}, t(name), el("input", { name, required: name === "nick", maxlength: name === "nick" ? 40 : 60 })));
  const add = el("form", { class: "inline card", id: "add-player", onsubmit: async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(new FormData(event.target).entries());
    if (await act("players", body)) event.target.reset();
  } }, ...fields, el("button", { type: "submit", text: t("add") }));
  const key = el("form", { class: "inline no-print", id: "admin-key", onsubmit: (event) => {
    event.preventDefault();
    sessionStorage.setItem("autohost.admin-key", event.target.key.value.trim());
    load();
  } }, el("label", {}, t("admin.key"), el("input", { name: "key", type: "password", autocomplete: "off" })),
  el("button", { type: "submit", text: t("admin.use") }));
  const settings = el("form", { class: "inline card", id: "club-settings", onsubmit: async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(new FormData(event.target).entries());
    if (await act("settings", body)) location.reload(); // the pages' language and name
  } },
  el("label", {}, t("club"), el("input", { name: "name", maxlength: 60, value: club.name ?? "" })),
  el("label", {}, t("language"), el("select", { name: "language" },
    ...["", "uk", "ru", "en"].map((lang) => el("option", { value: lang, text: lang || "—", selected: (club.language ?? "") === lang })))),
  el("button", { type: "submit", text: t("save") }));
  const th = (...keys) => el("tr", {}, ...keys.map((k) => el("th", { text: t(k) })));
  document.getElementById("club-main").replaceChildren(
    key, settings, add,
    issued ? el("p", { class: "ok", id: "issued" }, `${issued.nick} (${issued.kind}): `, el("span", { class: "link-out", text: issued.link })) : null,
    el("h2", { text: t("games") }),
    el("ul", { id: "signed-games" }, ...games.map((g) => el("li", {},
      el("a", { href: new URL(`sheet/${encodeURIComponent(g.game_id)}`, root).href, text: g.game_id }),
      ` · ${g.date} · ${t(`winner.${g.winner}`)}${g.corrections ? ` · ${t("sheet.correct")} ×${g.corrections}` : ""}`))),
    el("h2", { text: t("roster") }),
    el("table", { id: "roster" }, el("thead", {}, th("#", "nick", "name", "city", "roles", "link", "roles")),
      el("tbody", {}, ...players.map(row))),
  );
}

async function load() {
  try {
    [players, games] = await Promise.all([api("players"), api("games")]);
    render();
  } catch (error) {
    showError(error);
  }
}

header("admin.title");
window.__admin = { get players() { return players; }, get issued() { return issued; }, reload: load };
await load();
