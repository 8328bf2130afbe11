// The autohost widget for a club's LiveKit call. Add it next to your livekit-client Room:
//
//   import * as LivekitClient from "livekit-client";
//   import { attachAutohost } from "/static/livekit/autohost-widget.js";
//   const widget = attachAutohost(room, LivekitClient, { server, token, table, container });
//
// `token` is our seat link token; a club that mints its own LiveKit tokens passes
// `livekitToken` instead (the player's LiveKit token), traded for our link on the server.
// With neither (or `rpc: true`) the widget needs only the LiveKit room: commands go as
// LiveKit RPC to the table's bot and the views come back as data (rpc-transport.js), so it
// works whichever server hosts the table, and after a failover.
//
// It shows the overlay (phase, speaker, timer, vote buttons) from our server's state, sends
// the player's votes, and gives the microphone back when the server allows it again: the
// host revokes a silent player's publish permission (the server unpublishes his mic), and
// the SDK does not republish by itself when the permission returns (FIELD-NOTES).

import { endContainer, renderEnd } from "../end/end.js";
import { loadTexts } from "../i18n/i18n.js";
import { openEveryMicrophone, watchForBot } from "./open-microphones.js";
import { connectRpcTransport } from "./rpc-transport.js";
import { connectTransport, linkFromLiveKitToken } from "./transport.js";

export function micAllowed(permissions, Track) {
  if (!permissions?.canPublish) return false;
  const sources = permissions.canPublishSources ?? [];
  // an empty list allows every source; values are protocol TrackSource numbers (2 = mic)
  return sources.length === 0 || sources.includes(2) ||
    sources.includes(Track?.Source?.Microphone);
}

export function attachAutohost(room, livekit, options = {}) {
  const { ParticipantEvent, Track } = livekit;
  const local = room.localParticipant;
  const widget = {
    state: null,
    micRestores: 0,
    lastError: null,
    micPublished() {
      const publication = local.getTrackPublication(Track.Source.Microphone);
      return Boolean(publication?.track) && !publication.isMuted;
    },
    vote(candidate) { return transport?.send("vote", { candidate }); },
    send(type, fields) { return transport?.send(type, fields); },
    stop() {
      clearInterval(watchdog);
      local.off(ParticipantEvent.ParticipantPermissionsChanged, onPermissions);
      transport?.close();
      overlay?.remove();
    },
  };

  // The microphone follows the permission both ways: opened whenever the host allows it
  // and it is not published, closed on this side too when the permission goes. The server
  // unpublishes the microphone itself when it revokes the permission, but the SDK does not
  // always hear of it: a revoke that arrives while a publish is still in flight is dropped
  // as an "unknown track", and the page then holds a publication the server no longer has
  // (unmuting it later publishes nothing). So a publication never outlives its grant: when
  // the permission goes, the page unpublishes its microphone (which also stops capturing),
  // and each new grant publishes a fresh one. A publish can fail when a revoke races it, or
  // time out on a loaded machine (~10 s): it is tried again for as long as the permission
  // holds, and a watchdog re-checks every 2 s, so a speaker's microphone never stays closed
  // for his whole turn.
  let allowedBefore = micAllowed(local.permissions, Track);
  let grant = allowedBefore ? 1 : 0;  // how many grants this page has seen
  const microphone = () => local.getTrackPublication(Track.Source.Microphone);
  // the grant the page's microphone was published under (a club's page may have published
  // it before attaching the widget: that one belongs to the grant it holds now)
  let publishedFor = allowedBefore && widget.micPublished() ? grant : -1;
  let opening = null;
  async function ensureMicrophone() {
    if (opening) return opening;
    opening = (async () => {
      for (let attempt = 1; micAllowed(local.permissions, Track); attempt += 1) {
        const current = grant;
        if (widget.micPublished() && publishedFor === current) return;
        try {
          const stale = microphone();
          if (stale?.track && publishedFor !== current) await local.unpublishTrack(stale.track);
          await local.setMicrophoneEnabled(true);
          publishedFor = current;
          widget.micRestores += 1;
          if (grant === current) return;  // else revoked and granted again meanwhile: afresh
        } catch (error) {
          widget.lastError = String(error);
          await new Promise((resolve) => setTimeout(resolve, Math.min(500 * attempt, 3000)));
        }
      }
    })().finally(() => { opening = null; render(); });
    return opening;
  }
  function followPermission() {
    const allowed = micAllowed(local.permissions, Track);
    if (allowed && !allowedBefore) grant += 1;
    allowedBefore = allowed;
    if (allowed) {
      ensureMicrophone();
    } else if (microphone()?.track && !opening) {
      local.unpublishTrack(microphone().track)
        .catch((error) => { widget.lastError = String(error); })
        .finally(render);
    }
  }
  widget.ensureMicrophone = ensureMicrophone;
  const onPermissions = () => { followPermission(); };
  local.on(ParticipantEvent.ParticipantPermissionsChanged, onPermissions);
  const watchdog = setInterval(followPermission, 2000);

  const overlay = options.container === null ? null : makeOverlay(options.container);
  // The overlay's texts in the table's language (i18n/*.json), English until they load.
  let texts = null;
  let textsFor = null;
  function say(key, params, english) {
    return texts && texts.has(key) ? texts(key, params) : english;
  }
  function render() {
    if (!overlay) return;
    const view = widget.state ?? {};
    const language = view.table?.language ?? "en";
    if (textsFor !== language) {
      textsFor = language;
      loadTexts(language).then((loaded) => { texts = loaded; render(); });
    }
    const speakers = view.speakers ?? [];
    overlay.querySelector("[data-phase]").textContent =
      view.phase ? say(`phase.${view.phase}`, {}, view.phase) : "…";
    const seats = speakers.join(", ");
    overlay.querySelector("[data-speaker]").textContent =
      speakers.length ? say("overlay.speaking", { seats }, `speaking: ${seats}`) : "";
    const clock = view.clock;
    const seconds = clock?.remaining != null ? Math.ceil(clock.remaining) : null;
    overlay.querySelector("[data-clock]").textContent =
      seconds !== null ? say("overlay.seconds", { seconds }, `${seconds} s`) : "";
    overlay.querySelector("[data-mic]").textContent = micAllowed(local.permissions, Track)
      ? say("overlay.mic_open", {}, "🎙 your microphone is open")
      : say("overlay.mic_closed", {}, "microphone closed");
    const votes = overlay.querySelector("[data-votes]");
    votes.replaceChildren();
    const round = view.vote?.round ?? view.vote;  // {candidates, tally} of the open round
    if (round && view.me?.can_vote) {
      for (const candidate of round.candidates ?? []) {
        const button = document.createElement("button");
        button.textContent = `${candidate}`;
        button.dataset.candidate = candidate;
        button.onclick = () => widget.vote(candidate);
        votes.append(button);
      }
    }
    const tally = overlay.querySelector("[data-tally]");
    tally.textContent = round?.tally
      ? Object.entries(round.tally).map(([seat, votes]) => `${seat}: ${votes}`).join(" · ")
      : "";
    tally.dataset.tally = round?.tally ? JSON.stringify(round.tally) : "";
    renderEndScreen(view);
  }

  // The end of the game (end/end.js), in the table's language, under the overlay.
  let endTexts = null;
  async function renderEndScreen(view) {
    if (!view.end && !endTexts) return;
    const language = view.table?.language ?? "en";
    if (endTexts?.lang !== language) endTexts = await loadTexts(language);
    const container = overlay.querySelector(".end-screen") ?? overlay.appendChild(endContainer());
    const server = String(options.server).replace(/\/$/, "");
    renderEnd(container, view, {
      t: endTexts,
      token: linkToken,
      protocolUrl: (name) => `${server}/t/${encodeURIComponent(view.table.id)}/${name}`,
    });
  }

  let transport = null;
  let linkToken = null;
  function onMessage(message) {
    if (message.type === "state") { widget.state = message; render(); }
    else if (message.type === "error") {
      widget.lastError = message.error ?? message.code ?? "error";
    } else if (message.type === "moved" && linkToken !== null) {
      // the next game: this seat at its new table (over RPC the bot of the room says so)
      transport.close();
      connect(message.token, message.table);
    }
    options.onMessage?.(message);
  }
  function connect(token, table) {
    linkToken = token;
    transport = connectTransport({ server: options.server, token, table, onMessage });
  }
  if (options.rpc || !(options.token || options.livekitToken)) {
    transport = connectRpcTransport(room, livekit, { onMessage });
    widget.ready = transport.ready;
  } else if (options.server && options.token) {
    connect(options.token, options.table);
  } else if (options.server && options.livekitToken) {
    widget.ready = linkFromLiveKitToken(options.server, options.livekitToken)
      .then(({ link, table }) => connect(link, table))
      .catch((error) => { widget.lastError = String(error); });
  }
  // The live host's page (options.hostRescue = {url, token, room}: his own LiveKit room
  // admin token) offers "open every microphone" once no bot has been in the room for a
  // while: a stopped server leaves the microphones as they are, and if none comes back
  // the host can still let everybody talk (open-microphones.js).
  let rescue = null;
  if (options.hostRescue && overlay) {
    const button = document.createElement("button");
    button.dataset.openMicrophones = "";
    button.textContent = "Open every microphone";
    button.hidden = true;
    // With the token the page holds now: ours last 10 minutes, and LiveKit pushes the page
    // a fresh one (same grants) long before; the one it joined with may be long expired.
    button.onclick = () => openEveryMicrophone({ ...options.hostRescue,
      token: room.engine?.token ?? options.hostRescue.token })
      .then((opened) => { widget.opened = opened; button.hidden = true; })
      .catch((error) => { widget.lastError = String(error); });
    overlay.append(button);
    rescue = watchForBot(room, {
      seconds: options.hostRescue.seconds ?? 15,
      onChange: (absent) => { button.hidden = !absent; },
    });
  }
  const stop = widget.stop;
  widget.stop = () => { rescue?.stop(); stop(); };
  render();
  return widget;
}

function makeOverlay(container) {
  const overlay = document.createElement("div");
  overlay.className = "autohost-overlay";
  overlay.style.cssText =
    "position:fixed;right:12px;bottom:12px;padding:10px 14px;border-radius:8px;" +
    "background:rgba(20,20,28,.85);color:#fff;font:14px system-ui;z-index:1000;min-width:180px";
  overlay.innerHTML =
    '<div data-phase style="font-weight:600"></div><div data-speaker></div>' +
    '<div data-clock></div><div data-mic></div><div data-votes></div><div data-tally></div>';
  (container ?? document.body).append(overlay);
  return overlay;
}
