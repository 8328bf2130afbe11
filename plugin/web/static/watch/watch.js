// The spectators' page and the stream overlay (issue 17): the tiles, the speaker and his
// countdown, the nominations, the votes and the results as they happen.
//
// A watch link carries a watch token: the server sends it the public view only
// (plugin/rules/views.py public_view: no role, no check, no black team, no night action
// until the game is over) and refuses anything it sends (plugin/host/commands.py). So the
// page has no buttons, no microphone and no camera; it renders what it is sent, and shows
// the players' video and plays the table's audio as a receiver only. The
// overlay (overlay.html, body.overlay) is the same page on a transparent background, for
// OBS's browser source.
//
// The table's audio: the watch page listens to what a listener hears (the open microphones
// and the bot's voice) through a receive-only connection (the server refuses a spectator's
// offer that would send). A browser may refuse to play before a click: the "listen" button
// then appears. The overlay is silent unless its address asks for audio (`?audio=1`): OBS
// captures a browser source's audio only when the stream should carry it.

import { startAudio } from "../widget/av.js";
import { $, startPage } from "../widget/page.js";
import { dayTitle, phaseTitle, renderTiles, toast, voteSummary } from "../widget/tiles.js";

const overlay = document.body.classList.contains("overlay");
const wantsAudio = !overlay || new URLSearchParams(location.search).get("audio") === "1";
let view = null;

let startVideo = null; // the page's, once startPage has returned
let videoStarted = false;

const page = await startPage({
  debugName: "__watch", // window.__watch: tests and debugging
  onView: (next) => {
    view = next;
    render();
    watchVideo();
  },
  title: overlay ? "overlay.title" : "watch.title",
});
const { t, token, tableId, countdown, renderStatus, renderClock } = page;
startVideo = page.startVideo;

function render() {
  if (!view) return;
  $("phase").textContent = phaseTitle(view, t);
  $("day").textContent = dayTitle(view, t);
  $("paused").hidden = !view.table?.paused;
  $("paused").textContent = t("paused");
  $("watching").textContent = t("watch.badge");
  renderStatus();
  renderTiles($("tiles"), view, {
    t,
    me: null,
    seconds: countdown.seconds(),
    // Roles are in the public view only once the game is over; the stream overlay gets
    // them earlier while the host streams with roles, each after his delay (the server
    // sends nothing sooner, and never to a watch link).
    roleOf: (seat) => view.roles?.[String(seat)] ?? view.stream?.roles?.[String(seat)] ?? null,
    buttonsFor: () => [],
  });
  const { title, info } = voteSummary(view, t);
  $("vote-title").textContent = title;
  $("vote-info").textContent = info;
  if (overlay) renderStream(view.stream);
  renderClock();
}

function renderStream(stream) {
  $("stream-card").hidden = !stream || view.over;
  if (!stream) return;
  $("stream-title").textContent = t("stream.title", { seconds: stream.delay });
  $("stream-black").textContent = stream.black.length
    ? `${t("role.black")}: ${stream.black.join(", ")}` : "";
  $("stream-checks").replaceChildren(...stream.checks.map((check) => {
    const item = document.createElement("li");
    const who = t(check.kind === "don_check" ? "role.don" : "role.sheriff");
    item.textContent = `${who}: ${t(`check.${check.kind}.${check.result}`, { target: check.target })}`;
    return item;
  }));
  $("stream-shots").textContent = stream.shots.length
    ? t("stream.shots", { shots: stream.shots.map(([by, target]) => `${by} → ${target}`).join(", ") })
    : "";
}

// The video tiles as a receiver (plugin/web/video.py): every seat's camera by day, none at
// night; the server refuses any description of ours that would send. Started once the
// page and its first view are both there (the tiles are drawn from the view).
function watchVideo() {
  if (videoStarted || !startVideo || !view) return;
  videoStarted = true;
  startVideo("watch", { camera: false });
}
watchVideo();

const listen = $("listen");
listen.addEventListener("click", () => {
  $("audio").play().then(() => (listen.hidden = true)).catch(() => {});
});
if (wantsAudio) {
  startAudio({
    tableId,
    token,
    audio: $("audio"),
    listenOnly: true,
    base: page.serverBase,
    onBlocked: () => {
      listen.textContent = t("watch.listen");
      listen.hidden = false;
    },
  }).catch((error) => toast($("toast"), t("watch.no_audio", { message: error.message })));
}
