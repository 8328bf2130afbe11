// One peer of the video mesh: the RTCPeerConnection to one other page, its perfect
// negotiation, its sender's limits, the night rule on what it sends, and its tile.
// The mesh (video.js) owns the peers; `mesh` gives a peer: me, localTrack, localStream,
// quality, connectTimeoutMs, tileFor, ice (an RTCConfiguration), sees(who), send(message),
// rebuild(peer).

import { isPolite } from "./link.js";
import { peerTileState, setTile } from "./tile.js";

const STUCK_MS = 2000; // negotiated but ICE not started (or failed) this long: rebuild
const MAX_REBUILDS = 5;

const plain = (d) => ({ type: d.type, sdp: d.sdp });

export class Peer {
  constructor(mesh, seat, remoteConn, gen) {
    this.mesh = mesh;
    this.seat = seat;
    this.remoteConn = remoteConn;
    this.gen = gen;
    this.remoteGen = null;
    this.polite = isPolite(mesh.me, seat);
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
    // The server's STUN/TURN servers (embedded/ice.js); none: host candidates only.
    this.pc = new RTCPeerConnection(mesh.ice ?? { iceServers: [] });
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

  /** Sender encoding limits: the quality's bitrate and frame rate (docs/video.md). */
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
    const allowed = m.sees(this.seat);
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
    const shown = peerTileState({
      allowed: m.sees(this.seat),
      connection: this.pc.connectionState,
      hasStream: Boolean(this.stream),
      flowing: this.flowing,
      age: performance.now() - this.started,
      timeoutMs: m.connectTimeoutMs,
    });
    setTile(tile, this.seat, shown, shown === "live" ? this.stream : null);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    this.pc.close();
  }
}
