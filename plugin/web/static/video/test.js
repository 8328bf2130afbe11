import { startVideo } from "/static/video/video.js";

const query = new URLSearchParams(location.search);
const token = query.get("token");
const tiles = document.getElementById("tiles");
const tileFor = (seat) => {
  let tile = tiles.querySelector(`.video[data-seat="${seat}"]`);
  if (!tile) {
    tile = document.createElement("div");
    tile.className = "video";
    tile.dataset.seat = String(seat);
    tiles.append(tile);
  }
  return tile;
};
const wsBase = `ws://${location.host}`;

const firstState = new Promise((resolve) => {
  const control = new WebSocket(`${wsBase}/ws?token=${encodeURIComponent(token)}`);
  control.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type !== "state") return;
    window.view = message;
    window.video?.update(message);
    resolve(message);
  };
  window.control = control;
});

const view = await firstState;
const video = await startVideo({
  wsUrl: `${wsBase}/video`, token, seat: view.you, tileFor,
  quality: query.get("quality") ?? "low",
  connectTimeoutMs: Number(query.get("timeout") ?? 10000),
  view: window.view,
});
video.update(window.view);
window.video = video;
window.ready = true;
