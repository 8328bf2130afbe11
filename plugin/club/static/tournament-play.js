// A player's tournament page (issue 34): his tournament link lands here and the page follows
// him. Its socket (/club/tournaments/ws) opens with the link's token; once his round has
// started the server sends `moved` (his table and his seat's token there, as the next game
// sends it) and the page goes to his seat, the token kept in this tab's sessionStorage for
// the widget (never in a URL). The link's token is kept in this browser, so opening this
// page again after a game waits for the next round.

import { el, header, showError, store, stored, t, takeToken } from "./club.js";
import { retitle, texts } from "./tournament-texts.js";

const tt = texts(t);
const parts = location.pathname.split("/").filter(Boolean);
const tid = decodeURIComponent(parts[parts.length - 2] ?? "");
const key = `autohost.tournament.${tid}`;
const FINAL = new Set([4401, 4404]); // a refused link: no use asking again
const fresh = takeToken();
if (fresh) store(key, fresh);
const token = stored(key);
const state = { status: "connecting", me: null, moved: null, error: null };
window.__tournament = state;

header("tournament.play");
retitle(tt, "tournament.play");

function render() {
  const main = document.getElementById("club-main");
  if (!token) {
    main.replaceChildren(el("p", { text: tt("tournament.no_token") }));
    return;
  }
  const lines = [];
  if (state.me) lines.push(el("p", { id: "tournament-me", text: tt("tournament.you", state.me) }));
  if (state.moved) lines.push(el("p", { id: "tournament-status", text: tt("tournament.moving") }));
  else if (state.me) lines.push(el("p", { id: "tournament-status", text: tt("tournament.waiting") }));
  main.replaceChildren(el("section", { class: "card", id: "tournament-card", "data-status": state.status }, ...lines));
}

function goTo(table, seatToken) {
  const path = new URL(`../../../t/${encodeURIComponent(table)}/play`, location.href).pathname;
  sessionStorage.setItem(`token:${path}`, seatToken);
  location.replace(path);
}

function connect(delay = 1000) {
  const url = new URL("../ws", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(url);
  socket.onopen = () => {
    state.status = "online";
    socket.send(JSON.stringify({ type: "hello", token }));
  };
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (_) { return; }
    if (message.type === "tournament") {
      state.me = { nick: message.nick, name: message.name };
      state.status = "waiting";
    } else if (message.type === "moved") {
      state.moved = { table: message.table };
      state.status = "moved";
      render();
      goTo(message.table, message.token);
      return;
    } else if (message.type === "error") {
      state.error = message.error;
      showError({ message: message.message, code: message.error });
    }
    render();
  };
  socket.onclose = (event) => {
    if (state.moved) return;
    if (FINAL.has(event.code)) {
      state.status = "refused";
      if (["token_reissued", "token_revoked", "token_unknown"].includes(state.error)) store(key, null);
      render();
      return;
    }
    state.status = "reconnecting";
    setTimeout(() => connect(Math.min(delay * 2, 10000)), delay);
  };
}

render();
if (token) connect();
