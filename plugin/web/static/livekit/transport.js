// The connection to our server: the same WebSocket protocol as the embedded room
// (plugin/web/messages.py): GET /ws, then {"type": "hello", "token": <seat link token>,
// "table": <id>} as the first message (a token never goes in a URL); the server sends
// {"type": "state"|"ack"|"error", ...}; we send {"v": 1, "id": "<unique>", "type": ..., ...}.
// Kept apart from the widget so a club can swap it (e.g. for its own auth) without touching it.

import { hello, reconnecting } from "../socket/reconnecting.js";

export const PROTOCOL_VERSION = 1;

// A club that mints its own LiveKit tokens: trade the player's LiveKit token for our seat
// link (POST /livekit/link, verified on the server with the LiveKit API key).
export async function linkFromLiveKitToken(server, livekitToken) {
  const answer = await fetch(new URL("/livekit/link", server), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: livekitToken }),
  });
  if (!answer.ok) throw new Error(`LiveKit token refused by autohost: ${answer.status}`);
  return answer.json();  // {table, seat, link}
}

export function connectTransport({ server, token, table, onMessage, onClose, ...options }) {
  const base = new URL(server, location.href);
  base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  base.pathname = "/ws";
  base.search = "";
  let counter = 0;
  // Reopened with backoff and jitter unless refused for good (4401/4404: bad token, no
  // table): the same loop as the embedded widget's.
  const connection = reconnecting(base.href, {
    onOpen: () => connection.send(hello(token, table)),
    onMessage(data) {
      let message;
      try { message = JSON.parse(data); } catch { return; }
      onMessage?.(message);
    },
    onClose: (event) => onClose?.(event),
  }, options);

  return {
    send(type, fields = {}) {
      const id = `w${Date.now().toString(36)}-${++counter}`;
      return connection.send(JSON.stringify({ v: PROTOCOL_VERSION, id, type, ...fields }))
        ? id : null;
    },
    close() { connection.close(); },
  };
}
