// One video tile: the state of a seat's video container, shown on the container itself.
// data-video-state and class video-<state>, one of self | connecting | live | hidden |
// novideo; "novideo" also shows the text "no video", in the page's language once the page
// has called useTexts(t) (i18n/i18n.js; English until then, e.g. video/test.html).

export const STATES = ["self", "connecting", "live", "hidden", "novideo"];
const ENGLISH = { "video.none": "no video", "video.host": "host" };
let translate = (key) => ENGLISH[key] ?? key;

function text(state) {
  if (state === "novideo") return translate("video.none");
  return state === "connecting" ? "…" : "";
}

/** Speak the page's language on every tile from now on, and re-label the tiles already
 * drawn (a page learns its table's language from the first view). */
export function useTexts(t, root = globalThis.document) {
  translate = t;
  for (const tile of root?.querySelectorAll?.("[data-video-state]") ?? []) {
    const status = tile.querySelector(":scope > .video-status");
    if (status) status.textContent = text(tile.dataset.videoState);
    const label = tile.querySelector(":scope > .video-seat");
    if (label && label.dataset.host) label.textContent = translate("video.host");
  }
}

/** Put `state` on a tile: its class and data attribute, the label, and the stream. */
export function setTile(tile, seat, state, stream) {
  let element = tile.querySelector(":scope > video.video-stream");
  if (!element) {
    element = document.createElement("video");
    element.className = "video-stream";
    element.autoplay = true;
    element.muted = true; // video only; the sound comes through the server path
    element.playsInline = true;
    const label = document.createElement("span");
    label.className = "video-seat";
    if (seat === "host") label.dataset.host = "1";
    label.textContent = seat === "host" ? translate("video.host") : String(seat);
    const status = document.createElement("span");
    status.className = "video-status";
    tile.append(element, label, status);
  }
  for (const s of STATES) tile.classList.toggle(`video-${s}`, s === state);
  tile.dataset.videoState = state;
  tile.querySelector(":scope > .video-status").textContent = text(state);
  const wanted = stream ?? null;
  if (element.srcObject !== wanted) {
    element.srcObject = wanted;
    if (wanted) element.play().catch(() => {});
  }
  element.hidden = !wanted;
}

/** What a peer's tile shows (the pure part of Peer.paint): hidden when the pair may not
 * link; live while frames arrive; connecting until the timeout; else no video. */
export function peerTileState({ allowed, connection, hasStream, flowing, age, timeoutMs }) {
  if (!allowed) return "hidden";
  // Live = frames decoded since the last poll. Not `track.muted`: after a perfect-
  // negotiation rollback Chromium leaves the polite side's remote track muted while its
  // frames decode (seen in tests/e2e/test_video.py).
  if (connection === "connected" && hasStream) return flowing ? "live" : "connecting";
  if (age < timeoutMs && connection !== "failed" && connection !== "closed") return "connecting";
  return "novideo";
}

/** What this page's own tile shows: its camera while awake, else hidden (or no video
 * when it has no camera). */
export function selfTileState({ hasCamera, awake }) {
  if (!hasCamera) return "novideo";
  return awake ? "self" : "hidden";
}
