// Video tiles in the embedded room (issue 8, docs/video.md): a mesh of browser-to-browser
// peer connections, video only (audio stays on the server path, so the microphone rules
// hold), signalled through our server's `/video` WebSocket (plugin/web/video.py).
//
//   const video = await startVideo({ wsUrl, token, seat, tileFor, quality, view });
//   video.update(view);   // on every state message of the control WebSocket
//   video.stop();
//
// Theory of operation:
// - One Peer per other page, made when the pair may link (`mayLink`, the server's rule in
//   video.py) and the other page is present; glare is settled by "perfect negotiation":
//   the lower seat (the host lowest) is polite.
// - Every signal carries `gen`, the sender's peer-connection number for that peer. A peer
//   connection adopts the first gen it hears; a higher one means the other side rebuilt,
//   so this side rebuilds too; a lower one is stale and dropped. A server `conn` number
//   that changes means the other page reloaded.
// - Night (the view's phase): a page sends its camera only to pages it may link with
//   (sender.replaceTrack(null) otherwise) and shows only those; everyone by day, the black
//   team and the host at the black meeting, nobody at the rest of the night.
// - A tile's state is on its container: data-video-state and class video-<state>, one of
//   self | connecting | live | hidden | novideo; "novideo" also shows the text "no video".

const NIGHT = new Set([
  "black_meeting", "don_meeting", "sheriff_meeting", "free_seating", "shot", "don_check",
  "sheriff_check",
]);
const BLACK_ROLES = new Set(["don", "mafia"]);

// Default 320x240 at 15 fps: 10 players send 9 streams each, which fits a home uplink
// (docs/video.md, "bandwidth"). "high" is for small tables or good connections.
export const QUALITY = {
  low: { width: 320, height: 240, frameRate: 15, maxBitrate: 250_000 },
  high: { width: 640, height: 480, frameRate: 30, maxBitrate: 1_000_000 },
};

const CONNECT_TIMEOUT_MS = 10_000; // a peer not connected by then shows "no video"
const POLL_MS = 1000; // how often a tile checks that its frames still arrive
const STUCK_MS = 2000; // negotiated but ICE not started (or failed) this long: rebuild
const MAX_REBUILDS = 5;

/** Whether `who` may see and be seen in `phase` (video.py `awake`). */
export function awake(phase, who, black) {
  if (phase == null) return false; // no view yet: link nobody until the page knows the phase
  if (!NIGHT.has(phase)) return true;
  return phase === "black_meeting" && (who === "host" || black.has(who));
}

/** Whether pages `a` and `b` may exchange video in `phase` (video.py `may_link`). */
export function mayLink(phase, a, b, black) {
  return a !== b && awake(phase, a, black) && awake(phase, b, black);
}

/** The black seats this page knows of: all of them for the host, his team for a black
 * player, none for anyone else (a player sees only his own role). */
export function blackSeats(view) {
  if (view.roles && (view.you === "host" || view.over)) {
    return new Set(
      Object.entries(view.roles).filter(([, r]) => BLACK_ROLES.has(r)).map(([s]) => Number(s)),
    );
  }
  return new Set(view.me?.black_team ?? []);
}

const rank = (who) => (who === "host" ? 0 : who); // the lower rank is polite

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
  const mesh = new Mesh({ seat, tileFor, quality: q, connectTimeoutMs, localStream });
  if (view) mesh.update(view);
  await mesh.connect(signallingUrl(wsUrl, token));
  return mesh.api();
}

function signallingUrl(wsUrl, token) {
  const base = wsUrl ?? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/video`;
  const url = new URL(base, location.href);
  url.searchParams.set("token", token);
  return url.toString();
}

class Mesh {
  constructor({ seat, tileFor, quality, connectTimeoutMs, localStream }) {
    this.me = seat;
    this.tileFor = tileFor;
    this.quality = quality;
    this.connectTimeoutMs = connectTimeoutMs;
    this.localStream = localStream;
    this.localTrack = localStream?.getVideoTracks()[0] ?? null;
    this.present = new Map(); // seat -> server conn number
    this.peers = new Map(); // seat -> Peer
    this.phase = null; // until the first view: nobody is linked
    this.black = new Set();
    this.seats = [];
    this.stopped = false;
    this.errors = []; // the server's refusals, newest last (tests, debugging)
    this.signals = Promise.resolve(); // the chain that handles signals in order
  }

  /** Open the signalling socket; resolves on the first welcome. A socket that closes later
   * is reopened (backoff up to 10 s) unless the token was refused or another tab of the
   * same seat took over; meanwhile every tile of a peer shows "no video". */
  connect(url) {
    this.url = url;
    this.retries = 0;
    this.poller = setInterval(() => this.poll().catch(() => {}), POLL_MS);
    return new Promise((resolve, reject) => {
      this.opening = { resolve, reject };
      this.open();
    });
  }

  open() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "welcome") {
        this.retries = 0;
        this.opening?.resolve();
        this.opening = null;
      }
      this.onMessage(message);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws || this.stopped) return;
      this.dropAll();
      if (this.opening) {
        this.opening.reject(new Error(`video signalling closed: ${event.code} ${event.reason}`));
        this.opening = null;
        return;
      }
      const final = event.code === 4401 || event.code === 4404 ||
        this.errors.some((e) => e.error === "replaced");
      if (final) return;
      const delay = Math.min(10_000, 500 * 2 ** this.retries++);
      this.reopen = setTimeout(() => this.open(), delay);
    };
  }

  send(message) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  onMessage(message) {
    switch (message.type) {
      case "welcome":
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
    this.phase = view.phase;
    this.black = blackSeats(view);
    const count = view.table?.seats ?? view.players ?? 0;
    this.seats = Array.from({ length: count }, (_, i) => i + 1);
    this.refresh();
  }

  refresh() {
    if (this.stopped) return;
    for (const [seat] of this.present) {
      if (!this.peers.has(seat) && mayLink(this.phase, this.me, seat, this.black)) {
        this.newPeer(seat, 1);
      }
    }
    for (const peer of this.peers.values()) peer.applyRule();
    this.paintSelf();
    for (const seat of [...this.seats, "host"]) {
      if (seat === this.me || this.peers.has(seat)) continue;
      const tile = this.tileFor(seat);
      if (!tile) continue;
      const hidden = !mayLink(this.phase, this.me, seat, this.black);
      setTile(tile, seat, hidden ? "hidden" : "novideo", null);
    }
  }

  paintSelf() {
    const tile = this.tileFor(this.me);
    if (!tile) return;
    const sending = this.localTrack && awake(this.phase, this.me, this.black);
    setTile(tile, this.me, sending ? "self" : (this.localTrack ? "hidden" : "novideo"),
            sending ? this.localStream : null);
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

  stop() {
    this.stopped = true;
    clearInterval(this.poller);
    clearTimeout(this.reopen);
    for (const peer of this.peers.values()) peer.close();
    this.peers.clear();
    this.ws?.close();
    this.localStream?.getTracks().forEach((t) => t.stop());
    for (const seat of [...this.seats, "host"]) {
      const tile = this.tileFor(seat);
      if (tile) setTile(tile, seat, "novideo", null);
    }
  }
}

class Peer {
  constructor(mesh, seat, remoteConn, gen) {
    this.mesh = mesh;
    this.seat = seat;
    this.remoteConn = remoteConn;
    this.gen = gen;
    this.remoteGen = null;
    this.polite = rank(mesh.me) < rank(seat);
    this.makingOffer = false;
    this.ignoreOffer = false;
    this.stream = null;
    this.closed = false;
    this.stuckSince = null;
    this.rebuilds = 0;
    this.log = [];
    this.frames = 0; // framesDecoded at the last poll
    this.flowing = false;
    this.started = performance.now();
    // A closed network: no STUN or TURN, host candidates only (FIELD-NOTES).
    this.pc = new RTCPeerConnection({ iceServers: [] });
    if (mesh.localTrack) {
      this.sender = this.pc.addTrack(mesh.localTrack, mesh.localStream);
      this.limit();
    } else {
      this.pc.addTransceiver("video", { direction: "recvonly" });
      this.sender = null;
    }
    this.sending = Boolean(mesh.localTrack);
    this.pc.ontrack = ({ track, streams }) => {
      this.stream = streams[0] ?? new MediaStream([track]);
      this.paint();
    };
    this.pc.onicecandidate = ({ candidate }) => {
      if (candidate) this.signal({ candidate: candidate.toJSON() });
    };
    this.pc.onnegotiationneeded = async () => {
      try {
        this.makingOffer = true;
        await this.pc.setLocalDescription();
        this.signal({ description: plain(this.pc.localDescription) });
        this.note("sent offer");
      } catch (error) {
        this.note(`offer failed ${error}`);
        console.warn("video: offer failed", this.seat, error);
      } finally {
        this.makingOffer = false;
      }
    };
    this.pc.onconnectionstatechange = () => {
      if (this.pc.connectionState === "connected") this.limit();
      this.paint();
    };
    this.timer = setTimeout(() => this.paint(), mesh.connectTimeoutMs + 50);
  }

  /** Keep the last few negotiation steps for debug() (a failing test prints them). */
  note(step) {
    this.log.push(step);
    if (this.log.length > 40) this.log.shift();
  }

  signal(fields) {
    this.mesh.send({ type: "signal", to: this.seat, gen: this.gen, ...fields });
  }

  async handle({ description, candidate }) {
    const pc = this.pc;
    this.note(description ? `${description.type}@${pc.signalingState}/${this.makingOffer}` : "cand");
    try {
      if (description) {
        const collision = description.type === "offer" &&
          (this.makingOffer || pc.signalingState !== "stable");
        this.ignoreOffer = !this.polite && collision;
        if (this.ignoreOffer) return;
        await pc.setRemoteDescription(description); // rolls back our offer when polite
        if (description.type === "offer") {
          await pc.setLocalDescription();
          this.signal({ description: plain(pc.localDescription) });
        }
      } else if (candidate) {
        try {
          await pc.addIceCandidate(candidate);
        } catch (error) {
          if (!this.ignoreOffer) throw error;
        }
      }
    } catch (error) {
      this.note(`failed ${error}`);
      if (!this.closed) console.warn("video: signalling failed", this.seat, error);
    }
  }

  /** Sender encoding limits: the quality's bitrate and frame rate (docs/video.md). */
  /** The impolite side rebuilds the connection when negotiation is done but ICE is stuck
   * or failed. Seen in Chromium (1 glare in ~12): when the polite side's offer is rolled
   * back while it gathers, that connection never gathers a candidate again, not even
   * after restartIce(), and ICE stays "new" on both sides. */
  watch() {
    const pc = this.pc;
    const stuck = !this.polite && !this.closed && pc.signalingState === "stable" &&
      pc.remoteDescription && ["new", "failed"].includes(pc.iceConnectionState);
    const now = performance.now();
    if (!stuck) {
      this.stuckSince = null;
    } else if (this.stuckSince == null) {
      this.stuckSince = now;
    } else if (now - this.stuckSince > STUCK_MS && this.rebuilds < MAX_REBUILDS) {
      this.mesh.rebuild(this);
    }
  }

  async decoded() {
    if (this.closed) return this.frames;
    let frames = 0;
    (await this.pc.getStats()).forEach((s) => {
      if (s.type === "inbound-rtp" && s.kind === "video") frames += s.framesDecoded ?? 0;
    });
    return frames;
  }

  async limit() {
    if (!this.sender) return;
    try {
      const params = this.sender.getParameters();
      if (!params.encodings?.length) params.encodings = [{}];
      for (const encoding of params.encodings) {
        encoding.maxBitrate = this.mesh.quality.maxBitrate;
        encoding.maxFramerate = this.mesh.quality.frameRate;
      }
      await this.sender.setParameters(params);
    } catch (error) {
      console.warn("video: could not limit the sender", error);
    }
  }

  /** Send the camera only while the pair may link (the night rule), and repaint. */
  applyRule() {
    const m = this.mesh;
    const allowed = mayLink(m.phase, m.me, this.seat, m.black);
    if (this.sender && allowed !== this.sending) {
      this.sending = allowed;
      this.sender.replaceTrack(allowed ? m.localTrack : null).catch(
        (error) => console.warn("video: replaceTrack failed", error));
    }
    this.paint();
  }

  paint() {
    if (this.closed) return;
    const m = this.mesh;
    const tile = m.tileFor(this.seat);
    if (!tile) return;
    const state = this.pc.connectionState;
    // Live = frames decoded since the last poll. Not `track.muted`: after a perfect-
    // negotiation rollback Chromium leaves the polite side's remote track muted while
    // its frames decode (seen in tests/e2e/test_video.py).
    const live = state === "connected" && this.stream && this.flowing;
    let shown;
    if (!mayLink(m.phase, m.me, this.seat, m.black)) shown = "hidden";
    else if (live) shown = "live";
    else if (state === "connected" && this.stream) shown = "connecting";
    else if (performance.now() - this.started < m.connectTimeoutMs &&
             state !== "failed" && state !== "closed") shown = "connecting";
    else shown = "novideo";
    setTile(tile, this.seat, shown, shown === "live" ? this.stream : null);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.pc.close();
  }
}

const plain = (d) => ({ type: d.type, sdp: d.sdp });

const STATES = ["self", "connecting", "live", "hidden", "novideo"];
const TEXT = { novideo: "no video", hidden: "", connecting: "…", live: "", self: "" };

/** Put `state` on a tile: its class and data attribute, the label, and the stream. */
function setTile(tile, seat, state, stream) {
  let element = tile.querySelector(":scope > video.video-stream");
  if (!element) {
    element = document.createElement("video");
    element.className = "video-stream";
    element.autoplay = true;
    element.muted = true; // video only; the sound comes through the server path
    element.playsInline = true;
    const label = document.createElement("span");
    label.className = "video-seat";
    label.textContent = seat === "host" ? "host" : String(seat);
    const status = document.createElement("span");
    status.className = "video-status";
    tile.append(element, label, status);
  }
  for (const s of STATES) tile.classList.toggle(`video-${s}`, s === state);
  tile.dataset.videoState = state;
  tile.querySelector(":scope > .video-status").textContent = TEXT[state];
  const wanted = stream ?? null;
  if (element.srcObject !== wanted) {
    element.srcObject = wanted;
    if (wanted) element.play().catch(() => {});
  }
  element.hidden = !wanted;
}
