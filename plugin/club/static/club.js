// What every club page shares (issue 33): the texts, a tiny element helper, the API with a
// token in the Authorization header (never in a URL), the token a link carries in its
// fragment (read once, dropped from the address bar), and the language switch.

import { LANGUAGES, language, translator } from "./i18n.js";

export const root = new URL("../", import.meta.url); // /club/

/** The club's name and language (its admin sets them); nothing if the server is away. */
export const club = await fetch(new URL("../api/club/settings", root))
  .then((r) => (r.ok ? r.json() : {})).catch(() => ({}));
export const t = translator(language(club.language ?? ""));
document.documentElement.lang = t.lang;

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value == null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  node.append(...children.filter((child) => child != null));
  return node;
}


/** The token of the link that opened this page (#token=...), dropped from the address bar. */
export function takeToken() {
  const match = /(?:^|[#&])token=([^&]+)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(null, "", location.pathname + location.search);
  return decodeURIComponent(match[1]);
}

export function stored(key) {
  try { return localStorage.getItem(key); } catch (_) { return null; }
}

export function store(key, value) {
  try {
    if (value == null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch (_) { /* private mode: this page only */ }
}

/** ?view=judges: a judge's or admin's view of the results (a tournament's hidden extra
 * points too), with the credential this browser keeps (the admin key, or an admin's or
 * judge's personal link); never by default, since a judge's browser may be the one streaming. */
export const judgesView = new URLSearchParams(location.search).get("view") === "judges";

export function judgesToken() {
  if (!judgesView) return null;
  let key = null;
  try { key = sessionStorage.getItem("autohost.admin-key"); } catch (_) { /* private mode */ }
  return key || stored("autohost.club.admin") || stored("autohost.club.judge");
}

export class Refused extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** A JSON call to /api/club/...; Refused (its code and message) when the server says no. */
export async function api(path, { token = null, method = "GET", body = undefined } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(new URL(`../api/club/${path}`, root), {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Refused(answer.error ?? String(response.status), answer.message ?? "", response.status);
  return answer;
}

export function showError(error) {
  const box = document.getElementById("club-error");
  box.textContent = t("error", { message: error.message || error.code || String(error) });
  box.hidden = false;
}

export function clearError() {
  document.getElementById("club-error").hidden = true;
}

/** The page's header: its title, the club's links, the languages. */
export function header(title) {
  document.title = `${t(title)} · ${club.name || t("club.title")}`;
  const here = new URL(location.href);
  const languages = LANGUAGES.map((lang) => {
    here.searchParams.set("lang", lang);
    return el("a", { href: here.href, class: lang === t.lang ? "current" : null, text: lang });
  });
  document.getElementById("club-header").replaceChildren(
    ...(club.name ? [el("div", { class: "club-name", text: club.name })] : []),
    el("h1", { text: t(title) }),
    el("nav", { class: "club-nav no-print" },
      el("a", { href: new URL("standings", root).href, text: t("standings_link") }),
      el("a", { href: new URL("tournaments", root).href, text: t("tournaments_link") }),
      el("a", { href: new URL("me", root).href, text: t("me.title") }),
      el("span", { class: "languages" }, ...languages)),
  );
}

export function points(value) {
  return Number(value).toFixed(2);
}

export function roleName(role) {
  return t(role);
}
