// How the player widget and the host console start: one bootstrap for both pages.
//
// The token and the table come from the address (socket.js), the table's socket keeps
// itself open (reconnecting), the texts follow the table's language, the connection badge
// follows the socket, the countdown ticks in the header and on the speaker's tile, and the
// video mesh (issue 8) starts on the page's request. What a page shows and which messages
// it sends stay in the page (widget.js, console/console.js).

import { loadTexts } from "../i18n/i18n.js";
import { useTexts } from "../video/tile.js";
import { startVideoIfAvailable } from "./av.js";
import { Countdown, formatSeconds } from "./clock.js";
import { renderEnd, endContainer } from "../end/end.js";
import { ServerList, socketUrlOf } from "../socket/reconnecting.js";
import { moveTo, openSocket, socketUrl, tableIdFromPath, takeToken } from "./socket.js";
import { ensureTiles, toast } from "./tiles.js";

export const $ = (id) => document.getElementById(id);

/**
 * Start a page. onView(view) gets every view the server sends, after the texts have
 * followed the view's language and the countdown has taken its clock; the page renders it
 * (its render calls renderStatus and renderClock). window[debugName] = {socket, view} is
 * for the tests and debugging. Once the game is over every page shows the end screen
 * (end/end.js); onNextGame(token, tableId) (the console's) adds its "next game" button.
 *
 * Returns {token, tableId, t, countdown, socket, send(type, fields), renderStatus(),
 * renderClock(), startVideo(seat)}. `t` is one translator for the page's whole life: it
 * speaks the language of the latest view (English until the first one).
 */
export async function startPage({ debugName, onView, title, onNextGame }) {
  const token = takeToken();
  const tableId = tableIdFromPath();
  const countdown = new Countdown();
  // Until the first view names the table's language: the browser's, if we have it.
  let texts = await loadTexts((navigator.language ?? "en").slice(0, 2));
  const t = (key, params) => texts(key, params);
  Object.defineProperty(t, "lang", { get: () => texts.lang });
  t.has = (key) => texts.has(key);
  // A refusal in the page's language when the catalogue knows its code (the server's
  // message is English, for logs and tools), else the server's own words.
  const refusal = (error) =>
    t.has(`refusal.${error.error}`) ? t(`refusal.${error.error}`) : error.message || error.error;
  let view = null;
  let status = "connecting";
  let video = null;

  function renderStatus() {
    const badge = $("conn");
    badge.dataset.status = status;
    badge.textContent = t(`conn.${status}`);
    document.body.classList.toggle("reconnecting", status === "reconnecting");
  }

  function renderClock() {
    const seconds = countdown.seconds();
    $("clock").textContent = formatSeconds(seconds);
    $("clock").classList.toggle("low", seconds != null && seconds <= 10);
    const speakerTile = document.querySelector(".tile.speaking .countdown");
    if (speakerTile) speakerTile.textContent = formatSeconds(seconds);
  }

  async function receive(next) {
    const language = next.table?.language ?? "en";
    if (texts.lang !== language || !view) {  // the first view: the title, the tiles
      texts = await loadTexts(language);
      document.documentElement.lang = texts.lang;
      if (title) document.title = t(title);
      useTexts(t);
    }
    view = next;
    countdown.update(view.clock);
    onView(view);
    showEnd();
    video?.update(view);
  }

  // The end of the game (end/end.js): the same on every page; the console adds the next
  // game (onNextGame). The protocol's address is relative to the page (/t/{table}/...).
  function showEnd() {
    renderEnd(endContainer(), view, {
      t,
      token,
      protocolUrl: (name) => new URL(`../../t/${encodeURIComponent(view.table.id)}/${name}`, location.href),
      onNextGame: onNextGame && (() => onNextGame(token, view.table.id)),
    });
  }

  /** The video tiles for `seat` (a seat number, "host", or "watch" for a spectator, who
   * sends no camera), once; a no-op without video. */
  function startVideo(seat, { camera = true } = {}) {
    startVideoIfAvailable({
      token,
      seat,
      view,
      camera,
      tileFor: (s) => ensureTiles($("tiles"), view.table.seats)(s)?.querySelector(".video"),
    }).then((handle) => {
      video = handle;
      if (view) video.update(view);
    });
  }

  // Several servers with no load balancer: this one first, then the club's others, and
  // after a failover the one that hosts the table now (docs/servers.md).
  const servers = new ServerList([socketUrl()]);
  fetch(new URL("../../api/servers", location.href))
    .then((answer) => (answer.ok ? answer.json() : null))
    .then((told) => told && servers.add((told.peers ?? []).map(socketUrlOf)))
    .catch(() => {});
  const socket = openSocket(token, {
    onState: (next) => receive(next),
    onStatus: (next) => {
      const back = next === "online" && status === "reconnecting";
      status = next;
      renderStatus();
      // The server may have restarted or failed over: the media rejoins now (av.js), not
      // when its old peer connection is finally declared dead.
      if (back) document.dispatchEvent(new CustomEvent("socket-reconnected"));
    },
    onError: (error) => toast($("toast"), t("error", { message: refusal(error) })),
    // The host started the next game: this page's seat there (its token came over this
    // page's own socket).
    onMoved: (moved) => moveTo(moved.table, moved.token),
  }, { servers });
  window[debugName] = { socket, get view() { return view; } };
  // The HTTP base of the server the socket is on (after a failover, not this page's own):
  // where the page's audio joins the table's room (av.js).
  const serverBase = () => {
    const url = new URL(".", servers.current());
    url.protocol = url.protocol === "wss:" ? "https:" : "http:";
    return url.toString();
  };
  setInterval(() => view && renderClock(), 200);

  return {
    token,
    tableId,
    t,
    countdown,
    socket,
    send: (type, fields) => socket.send(type, fields),
    serverBase,
    renderStatus,
    renderClock,
    startVideo,
  };
}
