// In-memory stand-ins for the browser's WebSocket and timers, for the node tests of the
// pages' pure modules (plugin/web/static/**). Every socket made is in `FakeSocket.made`.

export class FakeSocket {
  static made = [];

  constructor(url) {
    this.url = url;
    this.readyState = 0; // CONNECTING
    this.sent = [];
    this.closedWith = null;
    this.listeners = {};
    FakeSocket.made.push(this);
  }

  static reset() {
    FakeSocket.made = [];
  }

  static get last() {
    return FakeSocket.made.at(-1);
  }

  addEventListener(type, listener) {
    (this.listeners[type] ??= []).push(listener);
  }

  fire(type, event = {}) {
    for (const listener of this.listeners[type] ?? []) listener(event);
  }

  // What the server (or the network) does:
  accept() {
    this.readyState = 1;
    this.fire("open");
  }

  receive(data) {
    this.fire("message", { data: typeof data === "string" ? data : JSON.stringify(data) });
  }

  end(code = 1006, reason = "") {
    this.readyState = 3;
    this.fire("close", { code, reason });
  }

  // What the page does:
  send(text) {
    if (this.readyState !== 1) throw new Error("send on a socket that is not open");
    this.sent.push(text);
  }

  close(code = 1000, reason = "") {
    this.closedWith = { code, reason };
    this.end(code, reason);
  }
}

/** setTimeout/clearTimeout that run only when the test says: run() fires the next one. */
export class FakeTimers {
  constructor() {
    this.pending = new Map();
    this.waits = [];
    this.counter = 0;
  }

  setTimeout = (callback, ms) => {
    const id = ++this.counter;
    this.pending.set(id, callback);
    this.waits.push(ms);
    return id;
  };

  clearTimeout = (id) => {
    this.pending.delete(id);
  };

  run() {
    const [id, callback] = this.pending.entries().next().value ?? [];
    if (!callback) throw new Error("no timer pending");
    this.pending.delete(id);
    callback();
  }
}
