// "Open every microphone": the live host's way out when no bot comes back (issue 30).
//
// A stopped server leaves the microphones as they are (a restart resumes the table in
// seconds). If no server's bot comes back, the host's page, which holds a LiveKit room
// admin's token of its own (tokens.host_token), gives every seated player his microphone
// itself, through the LiveKit server's RoomService (Twirp, JSON): ListParticipants, then one
// UpdateParticipant per seat that changes only the publish fields of what he holds (an
// update replaces every permission field: FIELD-NOTES). No bot, no autohost server needed.

const SERVICE = "/twirp/livekit.RoomService/";

export async function openEveryMicrophone({ url, token, room, fetch = globalThis.fetch }) {
  const base = url.replace(/^ws(s?):/, "http$1:").replace(/\/+$/, "");
  async function call(method, body) {
    const answer = await fetch(base + SERVICE + method, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${method}: ${answer.status} ${await answer.text()}`);
    return answer.json();
  }
  const listed = await call("ListParticipants", { room });
  const opened = [];
  for (const participant of listed.participants ?? []) {
    if (!/^seat-[1-9][0-9]?(\.[1-9][0-9]*)?$/.test(participant.identity)) continue;
    // The server answers with the proto's field names (can_publish); either spelling is
    // read, and one is sent (protojson refuses a field given under both).
    const held = Object.fromEntries(Object.entries(participant.permission ?? {})
      .map(([key, value]) => [key.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), value]));
    const sources = held.canPublish ? held.canPublishSources ?? [] : [];
    if (held.canPublish && (!sources.length || sources.includes("MICROPHONE"))) continue;
    const permission = { ...held, canPublish: true, canPublishSources: [...sources, "MICROPHONE"] };
    await call("UpdateParticipant", { room, identity: participant.identity, permission });
    opened.push(participant.identity);
  }
  return opened;
}

const isBot = (identity) =>
  typeof identity === "string" && (identity === "autohost-bot" || identity.startsWith("autohost-bot-"));

// Calls `onChange(absent)` when no bot has been in `room` for `seconds` (absent: true) and
// when one is back (false): the host's page offers "open every microphone" meanwhile.
export function watchForBot(room, { seconds = 15, onChange, timers = globalThis, every = 1000 }) {
  let since = timers.Date?.now?.() ?? Date.now();
  let absent = false;
  const now = () => timers.Date?.now?.() ?? Date.now();
  const tick = () => {
    const present = [...(room.remoteParticipants?.keys?.() ?? [])].some(isBot);
    if (present) since = now();
    const gone = !present && now() - since >= seconds * 1000;
    if (gone !== absent) { absent = gone; onChange?.(absent); }
  };
  const timer = timers.setInterval(tick, every);
  return { tick, stop: () => timers.clearInterval(timer) };
}
