// The video mesh's pure parts: who may link (link.js, from the view), what a tile shows
// (tile.js), and the signalling socket's first welcome and its final closes.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { isPolite, sees, sightOf } from "../../plugin/web/static/video/link.js";
import { openSignalling } from "../../plugin/web/static/video/signalling.js";
import { peerTileState, selfTileState } from "../../plugin/web/static/video/tile.js";
import { FakeSocket, FakeTimers } from "./fakes.mjs";

test("before any view a page links with nobody, not even its own camera", () => {
  for (const view of [null, undefined, {}, { phase: "speech" }]) {
    const sight = sightOf(view);
    assert.equal(sight.awake, false);
    assert.equal(sees(sight, 1), false);
    assert.equal(sees(sight, "host"), false);
  }
});

test("a page links exactly with the peers its view names", () => {
  const sight = sightOf({ phase: "black_meeting", video: { awake: true, peers: [2, 3, "host"] } });
  assert.equal(sight.awake, true);
  assert.deepEqual([1, 2, 3, 4, "host"].map((who) => sees(sight, who)),
    [false, true, true, false, true]);
  assert.equal(sees(sight, "2"), false, "seats are numbers, as the view sends them");
});

test("the phase alone decides nothing: the view's video field does", () => {
  const asleep = sightOf({ phase: "lobby", video: { awake: false, peers: [] } });
  assert.equal(asleep.awake, false);
  assert.equal(sees(asleep, 2), false);
});

test("the lower seat is polite, the host lowest of all", () => {
  assert.equal(isPolite("host", 1), true);
  assert.equal(isPolite(1, "host"), false);
  assert.equal(isPolite(2, 10), true);
  assert.equal(isPolite(10, 2), false);
});

const peer = (fields) => peerTileState({
  allowed: true, connection: "connecting", hasStream: false, flowing: false, age: 0,
  timeoutMs: 10_000, ...fields,
});

test("a peer's tile: hidden, live, connecting or no video", () => {
  assert.equal(peer({ allowed: false, connection: "connected", hasStream: true, flowing: true }),
    "hidden");
  assert.equal(peer({ connection: "connected", hasStream: true, flowing: true }), "live");
  assert.equal(peer({ connection: "connected", hasStream: true, flowing: false, age: 60_000 }),
    "connecting", "connected with a stream but no frames yet");
  assert.equal(peer({ age: 9_999 }), "connecting");
  assert.equal(peer({ age: 10_000 }), "novideo", "the connect timeout ran out");
  assert.equal(peer({ connection: "failed", age: 10 }), "novideo");
  assert.equal(peer({ connection: "closed", age: 10 }), "novideo");
});

test("the page's own tile: its camera while awake", () => {
  assert.equal(selfTileState({ hasCamera: true, awake: true }), "self");
  assert.equal(selfTileState({ hasCamera: true, awake: false }), "hidden");
  assert.equal(selfTileState({ hasCamera: false, awake: true }), "novideo");
});

let timers;
const signalling = (handlers = {}) => openSignalling("ws://x/video?token=t",
  { onMessage: () => {}, ...handlers }, { WebSocket: FakeSocket, timers });

beforeEach(() => {
  FakeSocket.reset();
  timers = new FakeTimers();
});

test("signalling is up at the first welcome, and comes back after a drop", async () => {
  const got = [];
  const downs = [];
  const { connection, welcomed } = signalling({
    onMessage: (m) => got.push(m.type),
    onDown: (event) => downs.push(event.code),
  });
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "welcome", you: 1, conn: 1, peers: [] });
  assert.equal((await welcomed).conn, 1);
  FakeSocket.last.end(4409); // dropped by the server (too slow), not replaced: retried
  assert.deepEqual(downs, [4409]);
  timers.run();
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "welcome", you: 1, conn: 2, peers: [] });
  assert.deepEqual(got, ["welcome", "welcome"]);
  assert.equal(connection.send("{}"), true);
});

test("a close before the first welcome rejects and is not retried", async () => {
  const { welcomed } = signalling();
  FakeSocket.last.end(4401);
  await assert.rejects(welcomed, /video signalling closed: 4401/);
  assert.equal(timers.pending.size, 0);
  FakeSocket.reset();
  const refused = signalling().welcomed;
  FakeSocket.last.end(1006); // no server: the page is told, not left waiting
  await assert.rejects(refused, /1006/);
  assert.equal(timers.pending.size, 0);
});

test("replaced by another tab of the same seat: final", async () => {
  let replaced = false;
  const downs = [];
  const { welcomed } = signalling({ final: () => replaced, onDown: (e) => downs.push(e.code) });
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "welcome", peers: [] });
  await welcomed;
  replaced = true;
  FakeSocket.last.end(4409);
  assert.deepEqual(downs, [4409]);
  assert.equal(timers.pending.size, 0);
  assert.equal(FakeSocket.made.length, 1);
});
