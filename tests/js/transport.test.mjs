// plugin/web/static/livekit/transport.js: the LiveKit widget's socket to our server.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { connectTransport } from "../../plugin/web/static/livekit/transport.js";
import { FakeSocket, FakeTimers } from "./fakes.mjs";

let timers;
beforeEach(() => {
  FakeSocket.reset();
  timers = new FakeTimers();
  globalThis.location = { href: "https://club.example/call" }; // the club's page
});

const connect = (fields = {}) => connectTransport({
  server: "http://autohost.example:8000", token: "seat-3", table: "t1",
  WebSocket: FakeSocket, timers, ...fields,
});

test("it opens /ws on our server, sends the token in its hello, and passes messages on", () => {
  const got = [];
  connect({ onMessage: (m) => got.push(m.type) });
  assert.equal(FakeSocket.last.url, "ws://autohost.example:8000/ws"); // no token in a URL
  FakeSocket.last.accept();
  assert.deepEqual(JSON.parse(FakeSocket.last.sent[0]),
    { type: "hello", token: "seat-3", table: "t1" });
  FakeSocket.last.receive("junk");
  FakeSocket.last.receive({ type: "state" });
  assert.deepEqual(got, ["state"]);
});

test("send() gives the message id, or null while not connected", () => {
  const transport = connect();
  assert.equal(transport.send("vote", { candidate: 2 }), null);
  FakeSocket.last.accept();
  const id = transport.send("vote", { candidate: 2 });
  assert.deepEqual(JSON.parse(FakeSocket.last.sent[1]), { v: 1, id, type: "vote", candidate: 2 });
});

test("it reconnects after a drop, not after 4401/4404, and tells of every close", () => {
  const closes = [];
  connect({ onClose: (event) => closes.push(event.code) });
  FakeSocket.last.end(1006);
  timers.run();
  assert.equal(FakeSocket.made.length, 2);
  FakeSocket.last.end(4401);
  assert.equal(timers.pending.size, 0);
  assert.deepEqual(closes, [1006, 4401]);
});

test("close() stops it for good", () => {
  const transport = connect();
  FakeSocket.last.end(1006);
  transport.close();
  assert.equal(timers.pending.size, 0);
  assert.equal(FakeSocket.made.length, 1);
});
