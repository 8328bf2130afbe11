// The page's audio (media.js, the embedded room) and, when the video module is installed,
// the video tiles. Both are optional for the game: a page without a microphone or without
// video still plays through the overlay.
//
// The audio connection heals itself: when the peer connection fails or closes (a network
// change, ICE consent lost on a starved machine) the page connects again with backoff,
// keeps its sending state, and plays the new stream. After a server restart or a failover
// the old peer connection is dead but takes 15 s or more to be declared so; the page's
// socket is back long before, so the page rejoins at once when its socket reconnects
// ("socket-reconnected" on document, page.js), whatever its peer connection still says
// (issue 32: the speaker's audio back within a second or two of the server, not 17 s). A
// cut of the page's own network that its socket survives leaves the peer connection to
// recover by itself: ICE resumes within moments of the network coming back, almost always.
// While it is "disconnected" the page asks the server's /healthz every PROBE_MS; once the
// server has answered for STALLED_MS and ICE has still not recovered, the page rejoins.
// bench/blip_audio.py saw one cut in ten or twenty take 7-11 s to recover by itself: ICE
// went "disconnected" only after the line was back, and stayed so (the home's NAT lost its
// mapping with the line, and the server's packets, arriving first, left it another port).

import { connect } from "../embedded/media.js";

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 8000;
const PROBE_MS = 250; // while disconnected: is the server reachable again?
const STALLED_MS = 500; // reachable this long and still disconnected: rejoin

/**
 * Join the table's audio with `token`; play the room's mix in `audio` (<audio autoplay>).
 * `base()`: the HTTP base URL of the server to join (each join asks anew): the one the
 * page's socket is connected to, which after a failover is another server than the page's
 * own (docs/servers.md); the page's own server by default.
 * Resolves after the first connection with {setSending(on), close()}; throws if that
 * first connection is refused (the caller shows why). Without a microphone (refused or
 * absent) the page still listens: it sends a silent track and calls onNoMicrophone. Each (re)connection is announced
 * with a "room" event on document (detail: media.js's connection) and window.__room.
 * listenOnly: a spectator's page, which only listens (no microphone is asked for).
 */
export async function startAudio({ tableId, token, audio, onBlocked, onNoMicrophone, listenOnly = false,
                                   base = () => new URL("../../", location.href).toString() }) {
  const signalUrl = () => new URL(`rtc/${encodeURIComponent(tableId)}/offer`, base()).toString();
  let current = null;
  let sending = true;
  let closed = false;
  let delay = FIRST_RETRY_MS;
  let retryTimer = null;
  let joining = null; // the join under way, if any
  let rejoinAgain = false; // a rejoin was asked for while one was under way

  let microphone; // undefined: ask getUserMedia; a stream: send that one

  async function join() {
    let room;
    try {
      room = await connect(signalUrl(), token, listenOnly ? { listenOnly } : microphone ? { microphone } : {});
    } catch (error) {
      if (listenOnly || microphone || !["NotAllowedError", "NotFoundError", "NotReadableError"].includes(error.name)) throw error;
      // No microphone (refused or absent): listen anyway, sending a silent track.
      microphone = new AudioContext().createMediaStreamDestination().stream;
      onNoMicrophone?.(error);
      room = await connect(signalUrl(), token, { microphone });
    }
    current = room;
    await room.setSending(sending);
    audio.srcObject = room.remoteStream;
    audio.play().catch(() => onBlocked?.()); // autoplay refused until the user clicks
    window.__room = room; // tests and debugging: the page's media connection
    document.dispatchEvent(new CustomEvent("room", { detail: room }));
    room.pc.addEventListener("connectionstatechange", () => {
      if (room !== current || closed) return;
      const state = room.pc.connectionState;
      if (state === "failed" || state === "closed") retry();
      else if (state === "disconnected") watchStalled(room);
    });
    return room;
  }

  function retry() {
    current?.close();
    current = null;
    const wait = delay;
    delay = Math.min(delay * 2, MAX_RETRY_MS);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(attempt, wait);
  }

  function attempt() {
    retryTimer = null;
    if (closed) return;
    joining = join();
    joining
      .then(() => (delay = FIRST_RETRY_MS))
      .catch(() => retry())
      .finally(() => {
        joining = null;
        if (rejoinAgain) {
          rejoinAgain = false;
          rejoin();
        }
      });
  }

  /** While `room` is disconnected: once the server answers again and ICE has not recovered
   * STALLED_MS later, rejoin (the network is back, the old connection is not). */
  function watchStalled(room) {
    let reachableAt = null;
    let timer = null;
    const probe = async () => {
      if (room !== current || closed || room.pc.connectionState !== "disconnected") {
        clearInterval(timer);
        return;
      }
      try {
        // no-cors: after a failover base() is a peer; reaching it is all that is asked
        await fetch(new URL("healthz", base()), {
          mode: "no-cors", cache: "no-store", signal: AbortSignal.timeout(2 * PROBE_MS),
        });
      } catch (_) {
        reachableAt = null; // not reachable (yet)
        return;
      }
      reachableAt ??= performance.now();
      if (performance.now() - reachableAt >= STALLED_MS && room === current) {
        clearInterval(timer);
        rejoin();
      }
    };
    timer = setInterval(probe, PROBE_MS);
    probe();
  }

  /** Drop the peer connection and join again now (the server restarted or failed over:
   * the old one leads nowhere), instead of waiting for it to be declared dead. */
  function rejoin() {
    if (closed) return;
    if (joining) {
      rejoinAgain = true; // the join under way may have gone to the server that went away
      return;
    }
    clearTimeout(retryTimer);
    current?.close();
    current = null;
    delay = FIRST_RETRY_MS;
    attempt();
  }

  const onReconnected = () => rejoin();
  document.addEventListener("socket-reconnected", onReconnected);

  try {
    await join();
  } catch (error) {
    document.removeEventListener("socket-reconnected", onReconnected);
    throw error;
  }
  return {
    async setSending(on) {
      sending = on;
      await current?.setSending(on);
    },
    rejoin,
    close() {
      closed = true;
      clearTimeout(retryTimer);
      document.removeEventListener("socket-reconnected", onReconnected);
      current?.close();
    },
  };
}

/** The video tiles of issue 8, if /static/video/video.js exists and the server has its
 * `/video` signalling route; else a no-op (the overlay works without video). */
export async function startVideoIfAvailable({ token, seat, tileFor, view, camera = true }) {
  const noop = { update() {}, stop() {} };
  let module;
  try {
    module = await import(new URL("../video/video.js", import.meta.url).toString());
  } catch (_) {
    return noop; // not installed: the overlay works without it
  }
  if (typeof module.startVideo !== "function") return noop;
  const wsUrl = new URL("../../video", location.href);
  wsUrl.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  wsUrl.search = "";
  wsUrl.hash = "";
  try {
    return (await module.startVideo({ wsUrl: wsUrl.toString(), token, seat, tileFor, view, camera })) ?? noop;
  } catch (error) {
    console.warn("video did not start", error);
    return noop;
  }
}
