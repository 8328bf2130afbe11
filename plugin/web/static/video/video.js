// Video tiles in the embedded room (issue 8, docs/video.md): a mesh of browser-to-browser
// peer connections, video only (audio stays on the server path, so the microphone rules
// hold), signalled through our server's `/video` WebSocket (plugin/web/video.py).
//
//   const video = await startVideo({ wsUrl, token, seat, tileFor, quality, view });
//   video.update(view);   // on every state message of the control WebSocket
//   video.stop();
//
// Theory of operation (one concern per module):
// - link.js, who may link with whom: the view's `video` field, the server's night rule
//   (plugin/rules/sight.py). A page sends its camera only to the peers it names
//   (sender.replaceTrack(null) otherwise) and shows only those: everyone by day, the black
//   team and the host at the black meeting, nobody at the rest of the night.
// - signalling.js, the `/video` socket, reopened by the pages' one reconnect loop.
// - peer.js, one peer connection: perfect negotiation (the lower seat, the host lowest, is
//   polite), sender limits, the stuck-ICE watchdog.
// - tile.js, what a tile shows: data-video-state and class video-<state>, one of
//   self | connecting | live | hidden | novideo; "novideo" also shows the text "no video".
// - This module, the mesh: one Peer per other page that is present and may be linked.
//   Every signal carries `gen`, the sender's peer-connection number for that peer. A peer
//   connection adopts the first gen it hears; a higher one means the other side rebuilt,
//   so this side rebuilds too; a lower one is stale and dropped. A server `conn` number
//   that changes means the other page reloaded.

import { iceConfiguration, iceUrlBeside, keepIceFresh } from "../embedded/ice.js";
import { sees, sightOf } from "./link.js";
import { Peer } from "./peer.js";
import { openSignalling } from "./signalling.js";
import { selfTileState, setTile } from "./tile.js";

export { mayLink } from "./night-rule.js"; // tests/e2e/test_video.py only: see night-rule.js

// Default 320x240 at 15 fps: 10 players send 9 streams each, which fits a home uplink
// (docs/video.md, "bandwidth"). "high" is for small tables or good connections.
export const QUALITY = {
  low: { width: 320, height: 240, frameRate: 15, maxBitrate: 250_000 },
  high: { width: 640, height: 480, frameRate: 30, maxBitrate: 1_000_000 },
};

const CONNECT_TIMEOUT_MS = 10_000; // a peer not connected by then shows "no video"
const POLL_MS = 1000; // how often a tile checks that its frames still arrive

export async function startVideo({
  wsUrl, token, seat, tileFor, quality = "low", connectTimeoutMs = CONNECT_TIMEOUT_MS,
  camera = true, view = null,
}) {
  const q = QUALITY[quality];
  if (!q) throw new Error(`quality is one of ${Object.keys(QUALITY)}, not ${quality}`);
  let localStream = null;
  if (camera) {
    try {
      localStream = await navigator.mediaDevices.getUserMedia({
        audio: false,
        video: { width: { ideal: q.width }, height: { ideal: q.height },
                 frameRate: { ideal: q.frameRate, max: q.frameRate } },
      });
    } catch (error) {
      console.warn("video: no camera, receiving only", error);
    }
  }
  const url = signallingUrl(wsUrl);
  const iceUrl = iceUrlBeside(url, 1);
  const ice = await iceConfiguration(iceUrl, token);
  const mesh = new Mesh({ seat, tileFor, quality: q, connectTimeoutMs, localStream, ice });
  // The mesh lasts the evening; its TURN credential lives minutes (issue 31): every new
  // peer and every rebuild uses the freshest one.
  mesh.stopIce = keepIceFresh(iceUrl, token, ice, (fresh) => mesh.freshIce(fresh));
  if (view) mesh.update(view);
  await mesh.connect(url, token);
  return mesh.api();
}

function signallingUrl(wsUrl) {
  const base = wsUrl ?? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/video`;
  return new URL(base, location.href).toString();
}

class Mesh {
  constructor({ seat, tileFor, quality, connectTimeoutMs, localStream, ice }) {
    this.me = seat;
    this.ice = ice; // every peer's RTCConfiguration: the server's STUN/TURN servers
    this.stopIce = null; // stops keeping `ice` fresh (startVideo)
    this.tileFor = tileFor;
    this.quality = quality;
    this.connectTimeoutMs = connectTimeoutMs;
    this.localStream = localStream;
    this.localTrack = localStream?.getVideoTracks()[0] ?? null;
    this.present = new Map(); // seat -> server conn number
    this.peers = new Map(); // seat -> Peer
    this.sight = sightOf(null); // until the first view: nobody is linked
    this.seats = [];
    this.stopped = false;
    this.errors = []; // the server's refusals, newest last (tests, debugging)
    this.signals = Promise.resolve(); // the chain that handles signals in order
  }

  /** Open the signalling socket; resolves on the first welcome. A socket that closes later
   * is reopened (signalling.js) unless the token was refused or another tab of the same
   * seat took over; meanwhile every tile of a peer shows "no video". */
  async connect(url, token) {
    this.poller = setInterval(() => this.poll().catch(() => {}), POLL_MS);
    const { connection, welcomed } = openSignalling(url, {
      token,
      onMessage: (message) => this.onMessage(message),
      onDown: () => {
        if (!this.stopped) this.dropAll();
      },
      final: () => this.errors.some((e) => e.error === "replaced"),
    });
    this.signalling = connection;
    await welcomed;
  }

  send(message) {
    this.signalling?.send(JSON.stringify(message));
  }

  /** Whether this page may exchange video with `who` now (its latest view says so). */
  sees(who) {
    return sees(this.sight, who);
  }

  onMessage(message) {
    switch (message.type) {
      case "welcome":
        this.me = message.you; // a spectator learns his name ("watch:<n>") here
        for (const peer of message.peers) this.present.set(peer.seat, peer.conn);
        this.refresh();
        break;
      case "join":
        this.present.set(message.seat, message.conn);
        this.peers.get(message.seat)?.close(); // the same seat came back: a new page
        this.peers.delete(message.seat);
        this.refresh();
        break;
      case "leave":
        if (this.present.get(message.seat) === message.conn) {
          this.present.delete(message.seat);
          this.peers.get(message.seat)?.close();
          this.peers.delete(message.seat);
          this.refresh();
        }
        break;
      case "signal":
        // One at a time, in arrival order: a candidate must not overtake its offer.
        this.signals = this.signals.then(() => this.onSignal(message)).catch(
          (error) => console.warn("video: signal failed", error));
        break;
      case "error":
        this.errors.push(message);
        break;
    }
  }

  async onSignal(message) {
    const { from, gen, description } = message;
    // join and leave are handled at once, signals in turn: one from a page that has left
    // (or been replaced) since is stale.
    if (this.present.get(from) !== message.conn) return;
    let peer = this.peers.get(from);
    if (peer && description?.type === "offer" && peer.remoteGen !== null &&
        gen > peer.remoteGen) {
      // The other side rebuilt its connection and offers anew: rebuild ours to match.
      peer.close();
      peer = this.newPeer(from, peer.gen + 1, peer.rebuilds);
    }
    if (!peer) {
      if (description?.type !== "offer") return; // nothing to answer or add it to
      // The server relayed it, so the server lets us link now, even if our view lags.
      peer = this.newPeer(from, 1);
    }
    if (peer.remoteGen !== null && gen < peer.remoteGen) return; // a dropped connection's
    if (!description && gen !== peer.remoteGen) return; // a candidate of another connection
    if (description) peer.remoteGen = gen;
    await peer.handle(message);
  }

  /** Replace a peer's connection by a new one with the next gen (the other side follows). */
  rebuild(peer) {
    peer.close();
    this.newPeer(peer.seat, peer.gen + 1, peer.rebuilds + 1);
  }

  newPeer(seat, gen, rebuilds = 0) {
    const peer = new Peer(this, seat, this.present.get(seat), gen);
    peer.rebuilds = rebuilds;
    this.peers.set(seat, peer);
    peer.applyRule();
    return peer;
  }

  /** Rebuild the picture from the latest view and presence: who to link, send, show. */
  update(view) {
    this.sight = sightOf(view);
    const count = view.table?.seats ?? view.players ?? 0;
    this.seats = Array.from({ length: count }, (_, i) => i + 1);
    this.refresh();
  }

  refresh() {
    if (this.stopped) return;
    for (const [seat] of this.present) {
      if (!this.peers.has(seat) && this.sees(seat)) {
        this.newPeer(seat, 1);
      }
    }
    for (const peer of this.peers.values()) peer.applyRule();
    this.paintSelf();
    for (const seat of [...this.seats, "host"]) {
      if (seat === this.me || this.peers.has(seat)) continue;
      const tile = this.tileFor(seat);
      if (!tile) continue;
      setTile(tile, seat, this.sees(seat) ? "novideo" : "hidden", null);
    }
  }

  paintSelf() {
    const tile = this.tileFor(this.me);
    if (!tile) return;
    const shown = selfTileState({ hasCamera: Boolean(this.localTrack), awake: this.sight.awake });
    setTile(tile, this.me, shown, shown === "self" ? this.localStream : null);
  }

  dropAll() {
    for (const peer of this.peers.values()) peer.close();
    this.peers.clear();
    this.present.clear();
    this.refresh();
  }

  api() {
    return {
      update: (view) => this.update(view),
      stop: () => this.stop(),
      stats: () => this.stats(),
      traffic: () => this.traffic(),
      camera: () => this.localTrack?.getSettings() ?? null,
      peers: () => Object.fromEntries(
        [...this.peers].map(([seat, peer]) => [seat, peer.pc.connectionState])),
      errors: () => [...this.errors],
      connections: () => Object.fromEntries([...this.peers].map(([seat, peer]) => [seat, peer.pc])),
      debug: () => Object.fromEntries([...this.peers].map(([seat, peer]) => [seat, {
        connection: peer.pc.connectionState, gen: peer.gen, remoteGen: peer.remoteGen,
        signaling: peer.pc.signalingState, ice: peer.pc.iceConnectionState,
        local: peer.pc.localDescription?.type ?? null,
        remote: peer.pc.remoteDescription?.type ?? null, log: peer.log,
        sending: peer.sending, transceivers: peer.pc.getTransceivers().length,
        frames: peer.frames, flowing: peer.flowing,
        limits: peer.sender?.getParameters().encodings?.[0] ?? null,
      }])),
      send: (message) => this.send(message), // raw signalling (tests)
    };
  }

  /** framesDecoded of the inbound video from each peer, by seat (tests, the console). */
  async stats() {
    const out = {};
    for (const [seat, peer] of this.peers) out[seat] = await peer.decoded();
    return out;
  }

  /** Video bytes sent to and received from each peer, and frames sent (bench/video_mesh.py). */
  async traffic() {
    const out = {};
    for (const [seat, peer] of this.peers) {
      const t = { sent: 0, received: 0, framesSent: 0 };
      (await peer.pc.getStats()).forEach((s) => {
        if (s.kind !== "video") return;
        if (s.type === "outbound-rtp") { t.sent += s.bytesSent; t.framesSent += s.framesSent; }
        if (s.type === "inbound-rtp") t.received += s.bytesReceived;
      });
      out[seat] = t;
    }
    return out;
  }

  /** Every POLL_MS: which peers' frames are still arriving (their tiles' "live"). */
  async poll() {
    for (const peer of [...this.peers.values()]) {
      const frames = await peer.decoded();
      peer.flowing = frames > peer.frames;
      peer.frames = frames;
      peer.watch();
      peer.paint();
    }
  }

  /** A fresh ICE configuration (keepIceFresh): for the peers to come, and for those open,
   * so an ICE restart allocates with a credential that still lives. */
  freshIce(fresh) {
    this.ice = fresh;
    for (const peer of this.peers.values()) {
      try {
        peer.pc.setConfiguration({ ...peer.pc.getConfiguration(), ...fresh });
      } catch (error) {
        console.warn("video: fresh ICE servers refused", peer.seat, error);
      }
    }
  }

  stop() {
    this.stopped = true;
    this.stopIce?.();
    clearInterval(this.poller);
    for (const peer of this.peers.values()) peer.close();
    this.peers.clear();
    this.signalling?.close();
    this.localStream?.getTracks().forEach((t) => t.stop());
    for (const seat of [...this.seats, "host"]) {
      const tile = this.tileFor(seat);
      if (tile) setTile(tile, seat, "novideo", null);
    }
  }
}
