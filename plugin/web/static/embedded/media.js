// The browser side of the embedded room's media connection.
//
// connect(signalUrl, token) sends this page's microphone to the server and receives the
// table's mix (the bot's voice and whoever may speak now). The server decides who is
// heard: setSending(false) only saves CPU and bandwidth while this seat may not speak;
// a page that keeps sending is still not forwarded.
//
// The STUN and TURN servers come from the server (ice.js: `POST /api/ice` with the token,
// TURN credentials minted for this page); a server that has none is reached directly.
// aiortc does not trickle, so the offer is sent once ICE gathering is complete.

import { iceConfiguration, iceUrlBeside } from "./ice.js";

const GATHERING_TIMEOUT_MS = 5000;

function gatheringComplete(pc) {
  if (pc.iceGatheringState === "complete") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (pc.iceGatheringState !== "complete") return;
      pc.removeEventListener("icegatheringstatechange", done);
      clearTimeout(timer);
      resolve();
    };
    // Some networks never report "complete"; the candidates gathered so far will do.
    const timer = setTimeout(() => {
      pc.removeEventListener("icegatheringstatechange", done);
      resolve();
    }, GATHERING_TIMEOUT_MS);
    pc.addEventListener("icegatheringstatechange", done);
  });
}

/**
 * Join the table's audio room.
 * @param {string} signalUrl  e.g. "/rtc/<table_id>/offer"
 * @param {string} token      the signed token of this page's seat (or of the host)
 * @param {{microphone?: MediaStream, ice?: RTCConfiguration, listenOnly?: boolean}} [options]
 *   a microphone stream to send instead of asking getUserMedia for one; an ICE
 *   configuration instead of the server's (`POST <base>/api/ice`); listenOnly: a
 *   spectator's page, which asks for no microphone and offers receive-only audio (the
 *   server refuses a spectator's offer that would send)
 * @returns {Promise<{pc: RTCPeerConnection, remoteStream: MediaStream,
 *   setSending: (on: boolean) => Promise<void>, close: () => void}>}
 */
export async function connect(signalUrl, token, options = {}) {
  const listenOnly = Boolean(options.listenOnly);
  const microphone = listenOnly ? null :
    options.microphone ??
    (await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      video: false,
    }));
  const micTrack = microphone?.getAudioTracks()[0] ?? null;
  if (!listenOnly && !micTrack) throw new Error("no microphone track");

  const ice = options.ice ?? (await iceConfiguration(iceUrlBeside(signalUrl, 3), token));
  const pc = new RTCPeerConnection(ice);
  const remoteStream = new MediaStream();
  pc.addEventListener("track", (event) => remoteStream.addTrack(event.track));
  const transceiver = listenOnly
    ? pc.addTransceiver("audio", { direction: "recvonly" })
    : pc.addTransceiver(micTrack, { direction: "sendrecv", streams: [microphone] });

  await pc.setLocalDescription(await pc.createOffer());
  await gatheringComplete(pc);
  // The token goes in a header, never the URL: the server checks it before it reads the body.
  const response = await fetch(signalUrl, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ sdp: pc.localDescription.sdp, type: pc.localDescription.type }),
  });
  if (!response.ok) {
    let detail = `${response.status}`;
    try {
      const body = await response.json();
      detail = `${body.error}: ${body.message}`;
    } catch (_) {
      // not JSON: keep the status
    }
    pc.close();
    throw new Error(`the room refused the connection (${detail})`);
  }
  await pc.setRemoteDescription(await response.json());

  let sending = !listenOnly;
  async function setSending(on) {
    if (listenOnly || on === sending) return;
    sending = on;
    await transceiver.sender.replaceTrack(on ? micTrack : null);
  }

  function close() {
    pc.close();
    if (microphone && !options.microphone) microphone.getTracks().forEach((track) => track.stop());
  }

  return { pc, remoteStream, setSending, close };
}
