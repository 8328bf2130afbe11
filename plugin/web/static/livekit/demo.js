// Query: ?link=<our seat link token>&server=<our server URL> (the LiveKit token comes from
// POST /livekit/token), or ?url=<LiveKit ws URL>&token=<a club's LiveKit token>; add
// &rpc=1 for the overlay through LiveKit alone (RPC to the bot, views as data).
import * as LivekitClient from "/npm/livekit-client/livekit-client.esm.mjs";
import { attachAutohost } from "/static/livekit/autohost-widget.js";

const { Room, RoomEvent, Track } = LivekitClient;
const query = new URLSearchParams(location.search);
const server = query.get("server") ?? location.origin;
const status = document.getElementById("status");
const tiles = document.getElementById("tiles");

async function liveKitAccess() {
  if (query.get("token") && query.get("url")) {
    return { url: query.get("url"), token: query.get("token") };
  }
  const answer = await fetch(new URL("/livekit/token", server), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ link: query.get("link") }),
  });
  if (!answer.ok) throw new Error(`token refused: ${answer.status}`);
  return answer.json();
}

// Remote audio: played, and measured with an AnalyserNode (headless Chromium reports
// audioLevel 0 in getStats, FIELD-NOTES).
const audio = new AudioContext();
const levels = {};
function listen(track, participant) {
  const element = track.attach();
  element.muted = true;  // the AnalyserNode below hears it; the element keeps it flowing
  document.body.append(element);
  const source = audio.createMediaStreamSource(new MediaStream([track.mediaStreamTrack]));
  const analyser = audio.createAnalyser();
  analyser.fftSize = 1024;
  source.connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  setInterval(() => {
    analyser.getFloatTimeDomainData(samples);
    const peak = samples.reduce((max, s) => Math.max(max, Math.abs(s)), 0);
    levels[participant.identity] = Math.max(levels[participant.identity] ?? 0, peak);
  }, 50);
}

function drawTiles(room) {
  tiles.replaceChildren(...[...room.remoteParticipants.values(), room.localParticipant].map((p) => {
    const tile = document.createElement("div");
    tile.className = "tile";
    const mic = p.getTrackPublication(Track.Source.Microphone);
    tile.textContent = `${p.identity}${mic && !mic.isMuted ? " 🎙" : ""}`;
    return tile;
  }));
}

try {
  const access = await liveKitAccess();
  const room = new Room();
  room.on(RoomEvent.TrackSubscribed, (track, _pub, participant) => {
    if (track.kind === "audio") listen(track, participant);
  });
  for (const event of [RoomEvent.ParticipantConnected, RoomEvent.ParticipantDisconnected,
    RoomEvent.TrackPublished, RoomEvent.TrackUnpublished, RoomEvent.LocalTrackPublished,
    RoomEvent.LocalTrackUnpublished]) {
    room.on(event, () => drawTiles(room));
  }
  await room.connect(access.url, access.token);
  await audio.resume();
  // Our seat link when we have one; else the club's own LiveKit token, traded on the server.
  const options = query.get("rpc")
    ? { rpc: true }
    : query.get("link")
      ? { server, token: query.get("link"), table: query.get("table") }
      : { server, livekitToken: access.token };
  // The live host's page holds a room admin's token: if no bot comes back to the room, it
  // offers "open every microphone" (open-microphones.js).
  if (access.seat === "host") {
    options.hostRescue = { url: access.url, token: access.token, room: access.room };
  }
  const widget = attachAutohost(room, LivekitClient, options);
  // Open the microphone if the host lets us now; the widget keeps it following the
  // permission from then on (not awaited: a publish racing a revoke can take a while).
  widget.ensureMicrophone();
  window.autohost = { room, widget, levels, Track };
  drawTiles(room);
  status.textContent = `in ${room.name} as ${room.localParticipant.identity}`;
  status.dataset.ready = "1";
} catch (error) {
  status.textContent = `failed: ${error}`;
  status.dataset.error = String(error);
}
