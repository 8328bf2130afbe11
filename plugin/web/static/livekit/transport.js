// The connection to our server: the same WebSocket protocol as the embedded room
// (plugin/web/protocol.py): GET /ws?token=<seat link token>&table=<id>; the server sends
// {"type": "state"|"ack"|"error", ...}; we send {"v": 1, "id": "<unique>", "type": ..., ...}.
// Kept apart from the widget so a club can swap it (e.g. for its own auth) without touching it.

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

export function connectTransport({ server, token, table, onMessage, onClose }) {
  const base = new URL(server, location.href);
  base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  base.pathname = "/ws";
  base.search = new URLSearchParams(table ? { token, table } : { token }).toString();
  let counter = 0;
  let closed = false;
  let socket = null;
  let retry = 250;

  function open() {
    socket = new WebSocket(base.href);
    socket.onopen = () => { retry = 250; };
    socket.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      onMessage?.(message);
    };
    socket.onclose = (event) => {
      onClose?.(event);
      // 4401/4404: refused for good (bad token, no table); anything else: reconnect
      if (!closed && event.code !== 4401 && event.code !== 4404) {
        setTimeout(open, retry);
        retry = Math.min(retry * 2, 5000);
      }
    };
  }
  open();

  return {
    send(type, fields = {}) {
      const id = `w${Date.now().toString(36)}-${++counter}`;
      if (socket?.readyState === WebSocket.OPEN) {
        socket.send(JSON.stringify({ v: PROTOCOL_VERSION, id, type, ...fields }));
        return id;
      }
      return null;
    },
    close() { closed = true; socket?.close(); },
  };
}
