// The overlay through LiveKit alone (plugin/rooms/livekit/rpc.py): the page needs only its
// LiveKit connection, whichever of the club's servers hosts the table.
// - commands: RPC `autohost.command` to the bot participant (`autohost-bot`), the payload
//   one message of our protocol ({"v": 1, "id", "type", ...}), the answer its ack or error;
// - `autohost.hello` asks for this page's view; the views come as data messages from the
//   bot on topic "autohost" (or in parts on "autohost.part" when longer than a packet).
// The bot verifies who calls by the LiveKit identity, so nothing here carries a seat.
// While no bot answers (a failover: the new owner's bot joins a few seconds later) a call
// is tried again with backoff; when a bot joins the room the page says hello again.
// Same interface as transport.js: {send(type, fields) -> id, close()}.

export const BOT_IDENTITY = "autohost-bot";
// A bot replaced by an impostor under its name joins again as `autohost-bot-<random>`
// (the server removes every other holder of a bot name at once): a page talks to the bot
// name it saw join last that is still in the room.
export const isBotIdentity = (identity, bot = BOT_IDENTITY) =>
  typeof identity === "string" && (identity === bot || identity.startsWith(`${bot}-`));
export const HELLO_METHOD = "autohost.hello";
export const COMMAND_METHOD = "autohost.command";
export const TOPIC = "autohost";
export const PART_TOPIC = "autohost.part";
const PROTOCOL_VERSION = 1;
// RpcError codes that mean "no bot serves this now": not found, not registered yet,
// gone mid-call, timeouts, not sent.
const RETRIED = new Set([1400, 1401, 1501, 1502, 1503, 1505]);
// A bot that answers but has no table for us yet (still opening it, or its database away):
// the hello is asked again.
const NOT_YET = new Set(["table_elsewhere", "log_unavailable", "table_moved"]);

export function connectRpcTransport(room, livekit, {
  onMessage, bot = BOT_IDENTITY, timers = globalThis, maxDelay = 5000, seconds = 120,
} = {}) {
  const { RoomEvent } = livekit;
  const decoder = new TextDecoder();
  let closed = false;
  let counter = 0;
  let pending = new Map();  // seq -> received parts (only the newest seq is kept)
  let current = bot;  // the bot name seen join last

  function target() {  // the bot to call: the last one seen join, if still in the room
    const present = room.remoteParticipants;
    if (!present || present.has?.(current)) return current;
    for (const identity of present.keys?.() ?? []) {
      if (isBotIdentity(identity, bot)) return (current = identity);
    }
    return current;
  }

  function deliver(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    onMessage?.(message);
    // the table moved to another server: its bot will have our view, once we ask
    if (message.type === "error" && message.error === "table_moved") hello();
  }

  function onData(payload, participant, _kind, topic) {
    if (!isBotIdentity(participant?.identity, bot)) return;  // only the bot speaks for us
    if (topic === TOPIC) {
      deliver(decoder.decode(payload));
    } else if (topic === PART_TOPIC) {
      const cut = payload.indexOf(10);  // "\n" ends the header
      let head;
      try { head = JSON.parse(decoder.decode(payload.subarray(0, cut))); } catch { return; }
      if (!pending.has(head.seq)) pending = new Map([[head.seq, []]]);  // older: dropped
      const got = pending.get(head.seq);
      got[head.part] = payload.subarray(cut + 1);
      if (got.filter(Boolean).length === head.parts) {
        pending.delete(head.seq);
        const whole = new Uint8Array(got.reduce((n, part) => n + part.length, 0));
        let at = 0;
        for (const part of got) { whole.set(part, at); at += part.length; }
        deliver(decoder.decode(whole));
      }
    }
  }
  function onJoined(participant) {
    if (!isBotIdentity(participant.identity, bot)) return;
    current = participant.identity;
    hello();  // a new owner's bot (a failover), or ours under a name of its own
  }
  room.on(RoomEvent.DataReceived, onData);
  room.on(RoomEvent.ParticipantConnected, onJoined);

  const sleep = (ms) => new Promise((resolve) => timers.setTimeout(resolve, ms));
  async function call(method, payload) {
    const deadline = Date.now() + seconds * 1000;
    for (let delay = 200; ; delay = Math.min(delay * 2, maxDelay)) {
      if (closed) throw new Error("closed");
      try {
        const answer = await room.localParticipant.performRpc({
          destinationIdentity: target(), method, payload, responseTimeout: 5000,
        });
        return JSON.parse(answer);
      } catch (error) {
        if (!RETRIED.has(error?.code) || Date.now() + delay > deadline) throw error;
        await sleep(delay * (0.75 + Math.random() / 2));  // jitter: pages don't stampede
      }
    }
  }

  async function greet() {
    const deadline = Date.now() + seconds * 1000;
    for (let delay = 500; ; delay = Math.min(delay * 2, maxDelay)) {
      const answer = await call(HELLO_METHOD, "");
      onMessage?.(answer);
      if (answer.type !== "error" || !NOT_YET.has(answer.error) || closed) return answer;
      if (Date.now() + delay > deadline) return answer;
      await sleep(delay);
    }
  }
  let helloing = null;
  function hello() {
    helloing ??= greet()
      .catch((error) => {
        onMessage?.({ type: "error", error: "no_bot", message: String(error?.message ?? error) });
      })
      .finally(() => { helloing = null; });
    return helloing;
  }

  const transport = {
    ready: hello(),
    hello,
    send(type, fields = {}) {
      if (closed) return null;
      const id = `r${Date.now().toString(36)}-${++counter}`;
      const message = JSON.stringify({ v: PROTOCOL_VERSION, id, type, ...fields });
      call(COMMAND_METHOD, message)
        .then((answer) => onMessage?.(answer))
        .catch((error) => onMessage?.({
          type: "error", id, error: "no_bot", message: String(error?.message ?? error),
        }));
      return id;
    },
    close() {
      closed = true;
      room.off(RoomEvent.DataReceived, onData);
      room.off(RoomEvent.ParticipantConnected, onJoined);
    },
  };
  return transport;
}
