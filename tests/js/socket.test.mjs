// plugin/web/static/widget/socket.js: the widget's and the console's table socket.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { openSocket } from "../../plugin/web/static/widget/socket.js";
import { FakeSocket, FakeTimers } from "./fakes.mjs";

let timers;
let seen;
const open = () =>
  openSocket("tok", {
    onState: (view) => seen.push(["state", view.version]),
    onError: (error) => seen.push(["error", error.error]),
    onAck: (ack) => seen.push(["ack", ack.id]),
    onStatus: (status) => seen.push(["status", status]),
  }, { url: "ws://x/ws", WebSocket: FakeSocket, timers });

beforeEach(() => {
  FakeSocket.reset();
  timers = new FakeTimers();
  seen = [];
});

test("its statuses: connecting, online, reconnecting, online again, refused", () => {
  const socket = open();
  FakeSocket.last.accept();
  socket.drop();
  timers.run();
  FakeSocket.last.accept();
  FakeSocket.last.end(4404);
  assert.deepEqual(socket.history,
    ["connecting", "online", "reconnecting", "online", "refused"]);
  assert.equal(timers.pending.size, 0);
});

test("after a reconnect the first state is handed on as the whole truth", () => {
  open();
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "state", version: 7 });
  FakeSocket.last.end(1006);
  timers.run();
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "state", version: 1 }); // a restarted server counts anew
  const states = seen.filter(([kind]) => kind === "state");
  assert.deepEqual(states, [["state", 7], ["state", 1]]);
});

test("messages are dispatched by type; junk is ignored", () => {
  open();
  FakeSocket.last.accept();
  FakeSocket.last.receive("not json");
  FakeSocket.last.receive({ type: "ack", id: "a-1" });
  FakeSocket.last.receive({ type: "error", error: "not_now" });
  FakeSocket.last.receive({ type: "other" });
  assert.deepEqual(seen.slice(2), [["ack", "a-1"], ["error", "not_now"]]);
});

test("send() numbers its messages and reports 'offline' while closed", () => {
  const socket = open();
  const early = socket.send("vote", { candidate: 3 });
  assert.deepEqual(seen.at(-1), ["error", "offline"]);
  FakeSocket.last.accept();
  const id = socket.send("vote", { candidate: 3 });
  assert.notEqual(id, early);
  assert.deepEqual(JSON.parse(FakeSocket.last.sent[1]), { v: 1, id, type: "vote", candidate: 3 });
});

test("the token goes in the first message of every socket, never in its URL", () => {
  const socket = openSocket("tok", {}, { WebSocket: FakeSocket, timers,
    url: "ws://x/ws" });
  FakeSocket.last.accept();
  assert.equal(FakeSocket.last.url.includes("tok"), false);
  assert.deepEqual(JSON.parse(FakeSocket.last.sent[0]), { type: "hello", token: "tok" });
  socket.drop();
  timers.run();
  FakeSocket.last.accept(); // the reconnected socket says who it is again
  assert.deepEqual(JSON.parse(FakeSocket.last.sent[0]), { type: "hello", token: "tok" });
});
