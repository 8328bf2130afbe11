// plugin/web/static/socket/reconnecting.js: the one reconnect loop of the pages.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  Backoff, FINAL_CLOSE_CODES, reconnecting, retryable,
} from "../../plugin/web/static/socket/reconnecting.js";
import { FakeSocket, FakeTimers } from "./fakes.mjs";

let timers;
const open = (url, handlers = {}, options = {}) =>
  reconnecting(url, handlers, { WebSocket: FakeSocket, timers, ...options });

beforeEach(() => {
  FakeSocket.reset();
  timers = new FakeTimers();
});

test("the backoff doubles from 250 ms to 500 ms for the first 30 s of an outage, then to 5 s", () => {
  const backoff = new Backoff({ random: () => 0.5 }); // the middle of the jitter: no change
  const waits = Array.from({ length: 80 }, () => backoff.next());
  assert.deepEqual(waits.slice(0, 5), [250, 500, 500, 500, 500]);
  const fast = waits.findIndex((wait, i) => waits.slice(0, i).reduce((a, b) => a + b, 0) >= 30000);
  assert.ok(fast > 0, waits);
  assert.ok(waits.slice(1, fast).every((wait) => wait === 500), waits);
  assert.deepEqual(waits.slice(fast, fast + 2), [5000, 5000]); // a server gone for longer
  backoff.reset();
  assert.deepEqual([backoff.next(), backoff.next(), backoff.next()], [250, 500, 500]);
});

test("each wait is drawn within ±25 % of the step", () => {
  assert.equal(new Backoff({ random: () => 0 }).next(), 188); // 250 * 0.75
  assert.equal(new Backoff({ random: () => 0.999999 }).next(), 312); // just under 250 * 1.25
  const low = new Backoff({ random: () => 0 });
  low.next();
  assert.equal(low.next(), 375); // 500 * 0.75
});

test("4401, 4404 and 4423 (removed from the lobby) are final, any other close is retried", () => {
  assert.deepEqual([...FINAL_CLOSE_CODES], [4401, 4404, 4423]);
  assert.equal(retryable({ code: 4401 }), false);
  assert.equal(retryable({ code: 4404 }), false);
  assert.equal(retryable({ code: 4423 }), false);
  for (const code of [1000, 1001, 1006, 1011, 4000, 4409]) assert.equal(retryable({ code }), true);
});

test("a dropped socket is reopened after the backoff, with a fresh url each time", () => {
  let attempt = 0;
  const events = [];
  open(() => `ws://x/ws?n=${++attempt}`, {
    onOpen: () => events.push("open"),
    onRetry: (wait, event) => events.push(`retry ${event.code}`),
  }, { backoff: new Backoff({ random: () => 0.5 }) });
  FakeSocket.last.accept();
  FakeSocket.last.end(1006);
  assert.equal(FakeSocket.made.length, 1, "not before the wait");
  timers.run();
  assert.equal(FakeSocket.made.length, 2);
  assert.deepEqual(FakeSocket.made.map((s) => s.url), ["ws://x/ws?n=1", "ws://x/ws?n=2"]);
  FakeSocket.last.end(1006); // refused at once: the wait grows
  timers.run();
  assert.deepEqual(timers.waits, [250, 500]);
  assert.deepEqual(events, ["open", "retry 1006", "retry 1006"]);
});

test("the backoff starts again once the server has spoken, not merely accepted", () => {
  open("ws://x", {}, { backoff: new Backoff({ random: () => 0.5, fastForMs: 0 }) });
  for (let i = 0; i < 3; i++) {
    FakeSocket.last.accept(); // accepted, then closed before a word: no reset
    FakeSocket.last.end(1011);
    timers.run();
  }
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "state" });
  FakeSocket.last.end(1006);
  assert.deepEqual(timers.waits, [250, 500, 1000, 250]);
});

test("a final close gives up and tells why", () => {
  const events = [];
  open("ws://x", {
    onClose: (event) => events.push(`close ${event.code}`),
    onGiveUp: (event) => events.push(`give up ${event.code}`),
    onRetry: () => events.push("retry"),
  });
  FakeSocket.last.end(4401);
  assert.deepEqual(events, ["close 4401", "give up 4401"]);
  assert.equal(timers.pending.size, 0);
});

test("the caller's retry decides (the video mesh: replaced by another tab)", () => {
  let replaced = false;
  const gaveUp = [];
  open("ws://x", { retry: (event) => retryable(event) && !replaced, onGiveUp: (e) => gaveUp.push(e.code) });
  FakeSocket.last.end(1006);
  timers.run();
  replaced = true;
  FakeSocket.last.end(4409);
  assert.deepEqual(gaveUp, [4409]);
  assert.equal(timers.pending.size, 0);
});

test("close() stops for good: no reopen, also not from a wait in progress", () => {
  const connection = open("ws://x");
  FakeSocket.last.end(1006); // a wait is pending
  connection.close();
  assert.equal(timers.pending.size, 0);
  const again = open("ws://y");
  FakeSocket.last.accept();
  again.close();
  assert.deepEqual(FakeSocket.last.closedWith, { code: 1000, reason: "" }); // a plain close()
  assert.equal(timers.pending.size, 0);
  assert.equal(FakeSocket.made.length, 2);
});

test("drop() closes as a network fault would: it is reopened", () => {
  const connection = open("ws://x");
  FakeSocket.last.accept();
  connection.drop();
  assert.equal(FakeSocket.made[0].closedWith.code, 4000);
  timers.run();
  assert.equal(FakeSocket.made.length, 2);
});

test("send() sends only on an open socket and says whether it did", () => {
  const connection = open("ws://x");
  assert.equal(connection.send("early"), false);
  FakeSocket.last.accept();
  assert.equal(connection.open, true);
  assert.equal(connection.send("hello"), true);
  assert.deepEqual(FakeSocket.last.sent, ["hello"]);
});

test("messages and closes of a replaced socket are ignored", () => {
  const got = [];
  open("ws://x", { onMessage: (data) => got.push(data), onClose: (e) => got.push(e.code) });
  const first = FakeSocket.last;
  first.end(1006);
  timers.run();
  first.receive("late"); // the old socket's late events
  first.end(1006);
  FakeSocket.last.accept();
  FakeSocket.last.receive("fresh");
  assert.deepEqual(got, [1006, "fresh"]);
  assert.equal(timers.pending.size, 0);
});
