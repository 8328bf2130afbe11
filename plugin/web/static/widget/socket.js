// The page's end of the one WebSocket protocol (plugin/web/protocol.py), reconnecting.
//
// The server sends the full view on every change and on (re)connect, so a page that lost
// its socket only has to reconnect: the first "state" it gets back is the whole truth.
// Backoff doubles from 250 ms to 5 s, with jitter so a restarted server is not hit by every
// page at the same instant. A close with 4401/4404 (bad token, no table) is final.

const VERSION = 1;
const FINAL_CLOSE_CODES = new Set([4401, 4404]);
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;

/** The WebSocket URL of this server, derived from the page's own location (relative). */
export function socketUrl(token) {
  const url = new URL("../../ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = `?token=${encodeURIComponent(token)}`;
  url.hash = "";
  return url.toString();
}

/**
 * Open the table's socket and keep it open.
 * handlers: onState(view), onStatus("connecting"|"online"|"reconnecting"|"refused"),
 *           onError({error, message, id}), onAck({id, duplicate})
 * Returns {send(type, fields) → id, close(), drop()} (drop: close the socket as a network
 * fault would, to test reconnection).
 */
export function openSocket(token, handlers) {
  let socket = null;
  let delay = FIRST_DELAY_MS;
  let stopped = false;
  let counter = 0;
  let timer = null;
  const prefix = Math.random().toString(36).slice(2, 8);

  const history = [];

  function status(value) {
    history.push(value);
    handlers.onStatus?.(value);
  }

  function connect() {
    socket = new WebSocket(socketUrl(token));
    socket.addEventListener("open", () => {
      delay = FIRST_DELAY_MS;
      status("online");
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (_) {
        return;
      }
      if (message.type === "state") handlers.onState?.(message);
      else if (message.type === "error") handlers.onError?.(message);
      else if (message.type === "ack") handlers.onAck?.(message);
    });
    socket.addEventListener("close", (event) => {
      if (stopped) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        status("refused");
        return;
      }
      status("reconnecting");
      const wait = delay * (0.75 + Math.random() * 0.5);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
      timer = setTimeout(connect, wait);
    });
  }

  status("connecting");
  connect();

  return {
    history, // every status this socket went through (tests)
    send(type, fields = {}) {
      counter += 1;
      const id = `${prefix}-${counter}`;
      if (socket && socket.readyState === WebSocket.OPEN) {
        socket.send(JSON.stringify({ v: VERSION, id, type, ...fields }));
      } else {
        handlers.onError?.({ error: "offline", message: "not connected", id });
      }
      return id;
    },
    close() {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    },
    drop() {
      socket?.close(4000, "dropped by the page");
    },
  };
}

/** The token this page was opened with (the fragment, `#token=`: never sent to a server, so
 * no access log keeps it), removed from the address bar so it is not bookmarked, shared by a
 * screenshot, or sent as a referrer. A reload finds it in this tab's sessionStorage. */
export function takeToken() {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  const token = fromHash || sessionStorage.getItem(`token:${location.pathname}`) || "";
  if (token) {
    sessionStorage.setItem(`token:${location.pathname}`, token);
    history.replaceState(null, "", location.pathname);
  }
  return token;
}

/** The table id of a page at /t/{table}/play or /t/{table}/host. */
export function tableIdFromPath() {
  const parts = location.pathname.split("/").filter(Boolean);
  const at = parts.indexOf("t");
  return at >= 0 ? decodeURIComponent(parts[at + 1] ?? "") : "";
}
