// Several servers and no load balancer: socket/reconnecting.js's ServerList and the table
// socket (widget/socket.js) going to the owner a refusal names, or to the next server.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { ServerList, socketUrlOf } from "../../plugin/web/static/socket/reconnecting.js";
import { openSocket } from "../../plugin/web/static/widget/socket.js";
import { FakeSocket, FakeTimers } from "./fakes.mjs";

let timers;
let states;

beforeEach(() => {
  FakeSocket.reset();
  timers = new FakeTimers();
  states = [];
});

const open = (servers) =>
  openSocket("tok", { onState: (view) => states.push(view.version) },
    { servers, WebSocket: FakeSocket, timers });

test("a server's base URL gives its socket URL, path and TLS kept", () => {
  assert.equal(socketUrlOf("http://a.club:8000"), "ws://a.club:8000/ws");
  assert.equal(socketUrlOf("https://club.example/mafia/"), "wss://club.example/mafia/ws");
});

test("the list goes round its servers; a redirect goes first, then on from there", () => {
  const list = new ServerList(["ws://a/ws", "ws://b/ws", "ws://a/ws", "ws://c/ws"]);
  assert.deepEqual(list.urls, ["ws://a/ws", "ws://b/ws", "ws://c/ws"]);
  assert.equal(list.current(), "ws://a/ws");
  list.failed();
  assert.equal(list.current(), "ws://b/ws");
  list.redirect("ws://d/ws");
  assert.equal(list.current(), "ws://d/ws");
  list.failed(); // the named owner died too: the one after it, then round again
  assert.equal(list.current(), "ws://a/ws");
  list.redirect("ws://c/ws");
  list.failed();
  assert.equal(list.current(), "ws://d/ws"); // the one after c (d was added when named)
});

test("refused with the owner named: the next socket goes to the owner", () => {
  const servers = new ServerList(["ws://a/ws", "ws://b/ws", "ws://c/ws"]);
  open(servers);
  assert.equal(FakeSocket.last.url, "ws://a/ws");
  FakeSocket.last.accept();
  assert.deepEqual(JSON.parse(FakeSocket.last.sent[0]), { type: "hello", token: "tok" });
  FakeSocket.last.receive({ type: "error", error: "table_elsewhere", server: "http://c" });
  FakeSocket.last.end(1013);
  timers.run();
  assert.equal(FakeSocket.last.url, "ws://c/ws"); // not b: the lease says c
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "state", version: 5 });
  assert.deepEqual(states, [5]);
});

test("a server that dies is left for the next one, without a hint", () => {
  const servers = new ServerList(["ws://a/ws", "ws://b/ws"]);
  open(servers);
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "state", version: 1 });
  FakeSocket.last.end(1006); // SIGKILLed
  timers.run();
  assert.equal(FakeSocket.last.url, "ws://b/ws");
  FakeSocket.last.end(1006); // not up yet either
  timers.run();
  assert.equal(FakeSocket.last.url, "ws://a/ws");
  FakeSocket.last.accept();
  FakeSocket.last.receive({ type: "error", error: "table_elsewhere" }); // no owner known yet
  FakeSocket.last.end(1013);
  timers.run();
  assert.equal(FakeSocket.last.url, "ws://b/ws");
});

test("a refusal that is final stays final, whatever the servers", () => {
  const servers = new ServerList(["ws://a/ws", "ws://b/ws"]);
  const socket = open(servers);
  FakeSocket.last.accept();
  FakeSocket.last.end(4404);
  assert.equal(timers.pending.size, 0);
  assert.equal(socket.history.at(-1), "refused");
});
