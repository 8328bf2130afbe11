// The device secret the lobby knows this browser by (plugin/web/lobby.py): made once per
// table and kept in localStorage, so a reload or a return on the same device finds its
// seat again. Only its hash is stored on the server.

export function deviceSecret(tableId, storage = safeStorage()) {
  const key = `autohost.device:${tableId}`;
  let secret = storage.getItem(key);
  if (!secret || !/^[A-Za-z0-9_-]{16,128}$/.test(secret)) {
    const bytes = new Uint8Array(24);
    crypto.getRandomValues(bytes);
    secret = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    storage.setItem(key, secret);
  }
  return secret;
}

/** The club member's personal link token this browser keeps (the club's "me" page stored
 * it, issue 33): the lobby joins him under his roster name. `forget` drops a refused one. */
export function memberToken(storage = safeStorage()) {
  return storage.getItem("autohost.member");
}

export function forgetMember(storage = safeStorage()) {
  storage.removeItem?.("autohost.member");
}

/** localStorage, or (site storage blocked) a map for this page's life: the player still
 * gets in, and only a reload needs the host again. */
function safeStorage() {
  try {
    const storage = globalThis.localStorage;
    storage.getItem("autohost.probe");
    return storage;
  } catch (_) {
    const memory = new Map();
    return {
      getItem: (k) => memory.get(k) ?? null,
      setItem: (k, v) => memory.set(k, v),
      removeItem: (k) => memory.delete(k),
    };
  }
}

/** The URL of the lobby's socket, beside the page (no token in it: that goes in hello). */
export function lobbyUrl() {
  const url = new URL("../../lobby", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  return url.toString();
}
