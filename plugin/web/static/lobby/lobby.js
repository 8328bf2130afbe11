// The invite link's page (issue 17): the player types his name and waits; once the host
// seats him, the server sends his seat's token over this socket (never in a URL) and the
// page moves to his seat (the widget reads the token from this tab's sessionStorage).
// Every text is from the catalogue; names are shown with textContent, never as HTML.

import { loadTexts } from "../i18n/i18n.js";
import { reconnecting } from "../socket/reconnecting.js";
import { tableIdFromPath, takeToken } from "../widget/socket.js";
import { deviceSecret, forgetMember, lobbyUrl, memberToken } from "./device.js";

const $ = (id) => document.getElementById(id);
const token = takeToken();
const tableId = tableIdFromPath();
const device = deviceSecret(tableId);
const member = memberToken(); // a club member joins as himself (issue 33)
let t = await loadTexts((navigator.language ?? "en").slice(0, 2));
let lobby = null;
let status = "connecting";
let over = false; // a final close (removed by the host, a refused link): nothing to send
window.__lobby = { get lobby() { return lobby; } };

function texts() {
  document.documentElement.lang = t.lang;
  document.title = t("lobby.title");
  $("lobby-title").textContent = t("lobby.title");
  $("name-label").textContent = t("lobby.name");
  $("join-button").textContent = t("lobby.join");
  $("leave").textContent = t("lobby.leave");
  $("waiting-title").textContent = t("lobby.waiting");
  $("nobody").textContent = t("lobby.nobody");
}

function showError(error) {
  const box = $("lobby-error");
  const key = `refusal.${error.error}`;
  box.textContent = t.has(key) ? t(key) : t("error", { message: error.message || error.error });
  box.hidden = false;
}

function renderStatus() {
  $("conn").dataset.status = status;
  $("conn").textContent = t(`conn.${status}`);
}

function render() {
  renderStatus();
  if (!lobby) return;
  const me = over ? { state: "over" } : (lobby.me ?? { state: "new" });
  $("join").hidden = !(me.state === "new" || me.state === "refused");
  $("leave").hidden = !(me.state === "waiting" || me.state === "pending");
  const line = {
    new: "",
    refused: t("lobby.refused"),
    waiting: t("lobby.you_wait", { name: me.name }),
    pending: t("lobby.pending", { name: me.name }),
    seated: t("lobby.seated", { name: me.name, seat: me.seat }),
  }[me.state] ?? "";
  $("status").textContent = line;
  const list = $("waiting");
  list.replaceChildren(...lobby.waiting.map((name) => {
    const item = document.createElement("li");
    item.textContent = name;
    if (me.state === "waiting" && name === me.name) item.classList.add("me");
    return item;
  }));
  $("nobody").hidden = lobby.waiting.length > 0;
}

const MEMBER_REFUSALS = new Set([
  "token_revoked", "token_reissued", "token_unknown", "token_no_right", "token_not_player",
  "token_not_personal", "no_club",
]);

async function receive(data) {
  let message;
  try {
    message = JSON.parse(data);
  } catch (_) {
    return;
  }
  if (message.type === "error") {
    if (member && MEMBER_REFUSALS.has(message.error)) {
      // his personal link was revoked or re-issued: join as a guest, typing a name
      forgetMember();
      location.reload();
      return;
    }
    showError(message);
    return;
  }
  if (message.type !== "lobby") return;
  if (message.language && message.language !== t.lang) {
    t = await loadTexts(message.language);
    texts();
  }
  lobby = message;
  if (message.me?.state === "seated" && message.me.token) {
    // The widget at /t/{table}/play takes its token from this tab's sessionStorage.
    const play = new URL("play", location.href);
    sessionStorage.setItem(`token:${play.pathname}`, message.me.token);
    connection.close();
    location.assign(play.pathname);
    return;
  }
  render();
}

texts();
renderStatus();
const connection = reconnecting(lobbyUrl(), {
  onOpen: () => {
    const hello = { type: "hello", token, table: tableId, device };
    if (member) hello.member = member;
    connection.send(JSON.stringify(hello));
    status = "online";
    renderStatus();
  },
  onMessage: (data) => receive(data),
  onRetry: () => { status = "reconnecting"; renderStatus(); },
  // Final (socket/reconnecting.js): the host removed this device (4423, issue 31) or its
  // link is refused; the page stays with the server's word and does not come back.
  onGiveUp: () => { status = "refused"; over = true; render(); renderStatus(); },
});

$("join").addEventListener("submit", (event) => {
  event.preventDefault();
  $("lobby-error").hidden = true;
  connection.send(JSON.stringify({ type: "join", name: $("name").value }));
});
$("leave").addEventListener("click", () => connection.send(JSON.stringify({ type: "leave" })));
