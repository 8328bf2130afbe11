// The end of the game on every page (issue 17): the result and why, every seat's role and
// how he left, the timeline (who left when and how, the checks, the best move, the
// fouls) and the protocol's links; on the host console the next game, in one click.
//
// Everything comes from the view's `end` (plugin/host/ending.py), which the server sends
// every page only once the game is over: before that `view.end` is null and this shows
// nothing. The protocol is fetched with the page's token in a header (never in a URL)
// and opened from memory (a blob: link).

const STYLE = new URL("./end.css", import.meta.url).href;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  return node;
}

function ensureStyle() {
  if (document.querySelector(`link[href="${STYLE}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = STYLE;
  document.head.append(link);
}

/** "Day 2" or "Night 1" for a timeline item or a seat's exit. */
export function momentText(item, t) {
  return "night" in item ? t("night", { n: item.night }) : t("day", { n: item.day });
}

/** The text of one timeline item (plugin/host/ending.py end_view's `timeline`). */
export function itemText(item, t) {
  switch (item.kind) {
    case "sheriff_check":
    case "don_check":
      return t(`end.event.${item.kind}.${item.found}`, { target: item.target });
    case "best_move":
      return t("end.event.best_move", { seat: item.seat, named: item.named.join(", "), correct: item.correct });
    default:
      return t(`end.event.${item.kind}`, { seat: item.seat });
  }
}

function seatsTable(end, t) {
  const list = el("ol", "end-seats");
  for (const seat of end.seats) {
    const row = el("li", `end-seat role-${seat.role ?? "none"}${seat.out ? " out" : ""}`);
    row.dataset.seat = String(seat.seat);
    row.append(el("span", "end-num", String(seat.seat)));
    // A table without names has the seat number as the name: shown once, as the number.
    row.append(el("span", "end-name", seat.name && seat.name !== String(seat.seat) ? seat.name : ""));
    row.append(el("span", "end-role", t(`role.${seat.role ?? "none"}`)));
    const out = el("span", "end-out");
    if (seat.out) out.append(el("span", "", t(`end.out.${seat.out.how}`)), el("span", "end-when", momentText(seat.out, t)));
    else out.append(el("span", "", t("end.in_game")));
    row.append(out);
    row.append(el("span", "end-fouls", seat.fouls ? t("end.fouls", { n: seat.fouls }) : ""));
    list.append(row);
  }
  return list;
}

function timeline(end, t) {
  const list = el("ol", "end-timeline");
  for (const item of end.timeline) {
    const row = el("li", `end-item ${item.kind}`);
    row.dataset.kind = item.kind;
    row.append(el("span", "end-when", momentText(item, t)), el("span", "end-what", itemText(item, t)));
    list.append(row);
  }
  if (!end.timeline.length) list.append(el("li", "end-item empty", t("end.empty")));
  return list;
}

/**
 * Show (or hide) the end screen of `view` in `container`.
 * options: t (the page's translator), protocolUrl(kind) → URL of "protocol.html" or
 * "protocol.json", token (sent as Bearer to fetch them), onNextGame() (the console only:
 * a "next game" button; it returns a promise, the button waits for it).
 */
export function renderEnd(container, view, { t, protocolUrl, token, onNextGame }) {
  ensureStyle();
  const end = view?.end;
  container.hidden = !end;
  document.body.classList.toggle("game-over", Boolean(end));
  if (!end) {
    container.replaceChildren();
    delete container.dataset.table;
    return;
  }
  const key = `${view.table.id}/${view.table.language}/${view.version}/${(view.controls ?? []).join()}`;
  if (container.dataset.key === key) return; // already shown: keep the links and the button
  container.dataset.key = key;
  const result = end.result ?? {};
  const header = el("header", "end-head");
  header.append(
    el("h2", "end-title", t("end.title")),
    el("div", `end-winner winner-${result.winner ?? "none"}`, t(`winner.${result.winner ?? "none"}`)),
  );
  if (result.termination) header.append(el("div", "end-why", t(`end.why.${result.termination}`)));
  const links = el("nav", "end-links");
  for (const [kind, label] of [["html", "end.protocol_html"], ["json", "end.protocol_json"]]) {
    const link = el("a", `end-protocol end-protocol-${kind}`, t(label));
    link.target = "_blank";
    link.rel = "noopener";
    if (kind === "json") link.download = `protocol-${view.table.id}.json`;
    link.setAttribute("aria-disabled", "true");
    links.append(link);
    fetchProtocol(protocolUrl(`protocol.${kind}`), token, kind).then((href) => {
      link.href = href;
      link.removeAttribute("aria-disabled");
    }).catch(() => {});
  }
  if (onNextGame) {
    // The judge's sheet of this game (the club, issue 33): the host link signs it there.
    const sheet = el("a", "end-sheet", t("end.sheet"));
    sheet.id = "end-sheet";
    sheet.target = "_blank";
    sheet.rel = "noopener";
    sheet.href = new URL(`../../club/sheet/${encodeURIComponent(view.table.id)}#token=${token}`,
      location.href).href;
    links.append(sheet);
  }
  if (onNextGame && (view.controls ?? []).includes("next_game")) {
    const next = el("button", "end-next-game", t("end.next_game"));
    next.type = "button";
    next.id = "next-game";
    next.title = t("end.next_game_hint");
    next.addEventListener("click", () => {
      next.disabled = true;
      next.textContent = t("end.moving");
      Promise.resolve(onNextGame()).catch(() => {
        next.disabled = false;
        next.textContent = t("end.next_game");
      });
    });
    links.prepend(next);
  }
  const body = el("div", "end-body");
  const seats = el("section", "end-section");
  seats.append(el("h3", "", t("end.seats")), seatsTable(end, t));
  const story = el("section", "end-section");
  story.append(el("h3", "", t("end.timeline")), timeline(end, t));
  body.append(seats, story);
  container.replaceChildren(header, links, body);
}

const fetched = new Map(); // url → blob: URL (one fetch per page and protocol)

async function fetchProtocol(url, token, kind) {
  const key = String(url);
  if (!fetched.has(key)) {
    fetched.set(key, fetch(url, { headers: { Authorization: `Bearer ${token}` } }).then(async (response) => {
      if (!response.ok) throw new Error(`${response.status}`);
      const type = kind === "html" ? "text/html;charset=utf-8" : "application/json";
      return URL.createObjectURL(new Blob([await response.arrayBuffer()], { type }));
    }));
    fetched.get(key).catch(() => fetched.delete(key));
  }
  return fetched.get(key);
}

/** The end screen's container on a page: `#end` if the page has one, else a new section
 * before the page's <main>. */
export function endContainer() {
  let container = document.getElementById("end");
  if (!container) {
    container = el("section", "end-screen");
    container.id = "end";
    container.hidden = true;
    const main = document.querySelector("main") ?? document.body.firstElementChild;
    main.parentNode.insertBefore(container, main);
  }
  return container;
}
