// One WebSocket that reopens itself: the table's socket of the widget and the console
// (widget/socket.js), the LiveKit widget's transport (livekit/transport.js) and the video
// mesh's signalling (video/signalling.js) all run on this one loop.
//
// Theory of operation:
// - A closed socket is reopened after a backoff that doubles from 250 ms, each wait drawn at
//   ±25 % (jitter), so a restarted server is not hit by every page at once. For the first
//   30 s of an outage the step stays at 500 ms at most: a server restarting (an upgrade)
//   or failing over answers again within seconds, and the page must be back within moments
//   of it, not a 4 s step later (issue 32: the speaker's audio follows the socket; with
//   1 s steps it came back 1.3-1.5 s after the server, with 500 ms 0.55 s,
//   bench/restart_audio.py). A page tries at most 2.5 times a second meanwhile, a
//   refused connection each. After that the step doubles to 5 s.
// - The backoff starts again from 250 ms once a socket has received a message: the server
//   speaking counts as up, an accept closed at once does not (so it cannot spin).
// - A close the caller's `retry(event)` refuses is final: by default the close codes
//   4401/4404 (bad token, no table), which reconnecting would only repeat, and 4423 (the
//   host removed this device from the lobby: it must not come back as a newcomer).
// - `close()` stops for good; `drop()` closes the socket as a network fault would (tests).
// - The WebSocket class and the timers are injectable, so tests/js runs this under node.
// - Several servers and no load balancer: `ServerList` picks the URL of each attempt (the
//   owner a refusal named, else the next server in turn).

export const FINAL_CLOSE_CODES = Object.freeze([4401, 4404, 4423]);
export const FIRST_DELAY_MS = 250;
export const MAX_DELAY_MS = 5000;
export const FAST_MAX_MS = 500; // the longest step for the first FAST_FOR_MS of an outage
export const FAST_FOR_MS = 30000;
export const JITTER = 0.25;
const OPEN = 1; // WebSocket.OPEN

/** The first message of every socket our pages open to our server: who it is. The token
 * never goes in a URL (proxies and servers keep URLs in their access logs). */
export function hello(token, table) {
  return JSON.stringify(table ? { type: "hello", token, table } : { type: "hello", token });
}

/** The socket URL (…/ws) of a server given by its public base URL (http(s)://host[/path]). */
export function socketUrlOf(base) {
  const url = new URL("ws", base.endsWith("/") ? base : `${base}/`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

/**
 * The servers a page may find its table on, with no load balancer in front (docs/servers.md):
 * its own first, then the club's others (GET /api/servers), tried in turn after every close;
 * a refusal that names the owner (`table_elsewhere` with `server`, from the lease) is tried
 * next instead. Give `current` to reconnecting() as its URL function.
 */
export class ServerList {
  constructor(urls = []) {
    this.urls = [];
    this.index = 0;
    this.hinted = null;
    this.add(urls);
  }

  add(urls) {
    for (const url of urls) if (url && !this.urls.includes(url)) this.urls.push(url);
  }

  current = () => this.hinted ?? this.urls[this.index % this.urls.length];

  /** The next socket goes to `url` (the server that holds the table now). */
  redirect(url) {
    if (!url) return;
    this.add([url]);
    this.hinted = url;
  }

  /** The socket to current() closed with no redirect: the next one goes to the next server. */
  failed() {
    if (this.hinted !== null) {
      this.index = this.urls.indexOf(this.hinted);
      this.hinted = null;
    }
    this.index = (this.index + 1) % this.urls.length;
  }
}

/** Whether a socket closed with this event should be reopened (not a final code). */
export function retryable(event) {
  return !FINAL_CLOSE_CODES.includes(event?.code);
}

/** Doubling waits with jitter, at most fastMaxMs while the waits so far add up to less
 * than fastForMs: next() → ms to wait, reset() after a good connection. */
export class Backoff {
  constructor({ firstMs = FIRST_DELAY_MS, maxMs = MAX_DELAY_MS, fastMaxMs = FAST_MAX_MS,
                fastForMs = FAST_FOR_MS, jitter = JITTER, random = Math.random } = {}) {
    Object.assign(this, { firstMs, maxMs, fastMaxMs, fastForMs, jitter, random });
    this.delay = firstMs;
    this.waited = 0;
  }

  next() {
    const step = this.waited < this.fastForMs ? Math.min(this.delay, this.fastMaxMs) : this.delay;
    const wait = step * (1 - this.jitter + 2 * this.jitter * this.random());
    this.delay = Math.min(this.delay * 2, this.maxMs);
    this.waited += wait;
    return Math.round(wait);
  }

  reset() {
    this.delay = this.firstMs;
    this.waited = 0;
  }
}

/**
 * Open `url` (a string, or a function giving it anew for each attempt) and keep it open.
 * handlers: onOpen(), onMessage(data), onClose(event) (every close, also the final one),
 *           onRetry(waitMs, event), onGiveUp(event) (a close `retry` refused),
 *           retry(event) → bool (default: `retryable`).
 * options: backoff, WebSocket, timers ({setTimeout, clearTimeout}).
 * Returns {send(text) → whether it was sent, close(), drop(), socket, open}.
 */
export function reconnecting(url, handlers = {}, options = {}) {
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  const timers = options.timers ?? globalThis;
  const backoff = options.backoff ?? new Backoff();
  const retry = handlers.retry ?? retryable;
  let socket = null;
  let timer = null;
  let stopped = false;

  function connect() {
    timer = null;
    const current = new Socket(typeof url === "function" ? url() : url);
    socket = current;
    let heard = false;
    current.addEventListener("open", () => {
      if (socket === current && !stopped) handlers.onOpen?.();
    });
    current.addEventListener("message", (event) => {
      if (socket !== current || stopped) return;
      if (!heard) {
        heard = true;
        backoff.reset();
      }
      handlers.onMessage?.(event.data);
    });
    current.addEventListener("close", (event) => {
      if (socket !== current) return; // an older socket's late close
      handlers.onClose?.(event);
      if (stopped) return;
      if (!retry(event)) {
        stopped = true;
        handlers.onGiveUp?.(event);
        return;
      }
      const wait = backoff.next();
      handlers.onRetry?.(wait, event);
      timer = timers.setTimeout(connect, wait);
    });
  }

  connect();

  return {
    get socket() {
      return socket;
    },
    get open() {
      return socket?.readyState === OPEN;
    },
    send(text) {
      if (socket?.readyState !== OPEN) return false;
      socket.send(text);
      return true;
    },
    close(code, reason) {
      stopped = true;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      if (code === undefined) socket?.close();
      else socket?.close(code, reason);
    },
    drop(code = 4000, reason = "dropped by the page") {
      socket?.close(code, reason);
    },
  };
}
