// The page's end of the one WebSocket protocol (plugin/web/messages.py), reconnecting.
//
// The server sends the full view on every change and on (re)connect, so a page that lost
// its socket only has to reconnect: the first "state" it gets back is the whole truth.
// The reconnecting (backoff with jitter; a close with 4401/4404, bad token or no table, is
// final) is socket/reconnecting.js, shared with the LiveKit transport and the video mesh.

import { hello, reconnecting, socketUrlOf } from "../socket/reconnecting.js";

const VERSION = 1;

/** The WebSocket URL of this server, derived from the page's own location (relative).
 * It carries no token: the token goes in the socket's first message (hello), because
 * proxies and servers keep URLs in their access logs. */
export function socketUrl() {
  const url = new URL("../../ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  return url.toString();
}


/**
 * Open the table's socket and keep it open.
 * handlers: onState(view), onStatus("connecting"|"online"|"reconnecting"|"refused"),
 *           onError({error, message, id}), onAck({id, duplicate}),
 *           onMoved({table, token}): the next game is at another table
 * options: servers (a ServerList: several servers, no load balancer: each attempt goes to
 *          the owner a refusal named, or the next server), url (tests), and reconnecting.js's
 *          WebSocket, timers, backoff.
 * Returns {send(type, fields) → id, close(), drop()} (drop: close the socket as a network
 * fault would, to test reconnection).
 */
export function openSocket(token, handlers, options = {}) {
  let counter = 0;
  const prefix = Math.random().toString(36).slice(2, 8);
  const history = [];

  function status(value) {
    history.push(value);
    handlers.onStatus?.(value);
  }

  const servers = options.servers ?? null;
  let redirected = false;

  function receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch (_) {
      return;
    }
    if (servers && message.type === "error" && message.error === "table_elsewhere"
        && typeof message.server === "string") {
      servers.redirect(socketUrlOf(message.server));
      redirected = true;
    }
    if (message.type === "state") handlers.onState?.(message);
    else if (message.type === "error") handlers.onError?.(message);
    else if (message.type === "ack") handlers.onAck?.(message);
    else if (message.type === "moved") handlers.onMoved?.(message);
  }

  status("connecting");
  const url = servers ? servers.current : (options.url ?? socketUrl());
  const connection = reconnecting(url, {
    onOpen: () => {
      connection.send(hello(token));
      status("online");
    },
    onMessage: receive,
    onClose: () => {
      if (servers && !redirected) servers.failed();
      redirected = false;
    },
    onRetry: () => status("reconnecting"),
    onGiveUp: () => status("refused"),
  }, options);

  return {
    history, // every status this socket went through (tests)
    send(type, fields = {}) {
      counter += 1;
      const id = `${prefix}-${counter}`;
      if (!connection.send(JSON.stringify({ v: VERSION, id, type, ...fields }))) {
        handlers.onError?.({ error: "offline", message: "not connected", id });
      }
      return id;
    },
    close() {
      connection.close();
    },
    drop() {
      connection.drop();
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

/** Open this page's seat at table `table` (the next game) with `token`: kept in this
 * tab's sessionStorage for the new address, which carries no token. */
export function moveTo(table, token) {
  const parts = location.pathname.split("/");
  const at = parts.indexOf("t");
  if (at < 0) return;
  parts[at + 1] = encodeURIComponent(table);
  const path = parts.join("/");
  sessionStorage.setItem(`token:${path}`, token);
  location.replace(path);
}

/** The table id of a page at /t/{table}/play or /t/{table}/host. */
export function tableIdFromPath() {
  const parts = location.pathname.split("/").filter(Boolean);
  const at = parts.indexOf("t");
  return at >= 0 ? decodeURIComponent(parts[at + 1] ?? "") : "";
}
