// "Me" (issue 33): the page a personal link opens. Its token is kept in this browser by its
// kind: a player's is the one the lobby sends (he joins any table as himself); a judge's
// and an admin's are what the sheet and admin pages use.

import { api, clearError, el, header, root, showError, store, stored, t, takeToken } from "./club.js";

const KEYS = { player: "autohost.member", judge: "autohost.club.judge", admin: "autohost.club.admin" };
const fresh = takeToken();

async function who(token) {
  try {
    return await api("me", { token });
  } catch (error) {
    return { error };
  }
}

async function load() {
  header("me.title");
  clearError();
  const sections = [];
  if (fresh) {
    const me = await who(fresh);
    if (me.error) showError(me.error);
    else store(KEYS[me.kind], fresh);
  }
  for (const [kind, key] of Object.entries(KEYS)) {
    const token = stored(key);
    if (!token) continue;
    const me = await who(token);
    if (me.error) { // revoked or re-issued: forgotten here, the link's owner asks for a new one
      store(key, null);
      showError(me.error);
      continue;
    }
    const mine = new URL(`players/${encodeURIComponent(me.player.id)}`, root).href;
    if (kind === "player") {
      sections.push(el("section", { class: "card", id: "me-player" },
        el("p", { text: t("me.remembered", { nick: me.player.nick }) }),
        el("a", { href: mine, id: "my-page", text: t("me.my_page") })));
    } else if (kind === "judge") {
      const games = me.unsigned.map((id) => el("li", {}, el("a", { href: new URL(`sheet/${encodeURIComponent(id)}`, root).href, text: id })));
      const open = (await api("tables", { token }).catch(() => [])).filter((table) => !table.over);
      const host = (id) => async () => { // the table's console, its host token in the fragment
        try {
          location.assign((await api(`tables/${encodeURIComponent(id)}/host`, { token, method: "POST" })).link);
        } catch (error) { showError(error); }
      };
      const tables = open.map((table) => el("li", {}, `${table.id} `,
        el("button", { type: "button", class: "host-table", "data-table": table.id, text: t("me.host"), onclick: host(table.id) })));
      const create = el("button", { type: "button", id: "new-table", text: t("me.new_table"), onclick: async () => {
        try {
          const links = await api("tables", { token, method: "POST", body: { language: t.lang } });
          location.assign(links.host.link);
        } catch (error) { showError(error); }
      } });
      sections.push(el("section", { class: "card", id: "me-judge" },
        el("p", { text: t("me.judge") }), games.length ? el("ul", {}, ...games) : el("p", { class: "muted", text: t("me.none") }),
        el("p", { text: t("me.tables") }), tables.length ? el("ul", { id: "open-tables" }, ...tables) : el("p", { class: "muted", text: t("me.none") }),
        create));
    } else {
      sections.push(el("section", { class: "card", id: "me-admin" },
        el("p", { text: t("me.admin") }), el("a", { href: new URL("admin", root).href, text: t("me.admin_page") })));
    }
  }
  if (!sections.length) sections.push(el("p", { text: t("me.no_token") }));
  document.getElementById("club-main").replaceChildren(...sections);
}

window.__me = { reload: load };
await load();
