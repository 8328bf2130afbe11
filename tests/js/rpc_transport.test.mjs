// plugin/web/static/livekit/rpc-transport.js: the overlay through LiveKit alone. The room is
// a fake (its performRpc answers what the test says); the real one is in
// tests/e2e/test_livekit_rpc_browser.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  COMMAND_METHOD, HELLO_METHOD, PART_TOPIC, TOPIC, connectRpcTransport,
} from "../../plugin/web/static/livekit/rpc-transport.js";

const livekit = { RoomEvent: { DataReceived: "data", ParticipantConnected: "joined" } };
const encode = (value) => new TextEncoder().encode(value);
const now = { setTimeout: (f) => setTimeout(f, 0) };  // backoff without waiting

class FakeRoom {
  constructor(answer) {
    this.handlers = {};
    this.calls = [];
    this.answer = answer;  // (call) -> string, or throws an RpcError-like
    this.localParticipant = {
      performRpc: async (call) => { this.calls.push(call); return this.answer(call); },
    };
  }
  on(event, handler) { (this.handlers[event] ??= []).push(handler); }
  off(event, handler) { this.handlers[event] = this.handlers[event].filter((h) => h !== handler); }
  emit(event, ...args) { for (const handler of this.handlers[event] ?? []) handler(...args); }
}

const ack = (call) => {
  if (call.method === HELLO_METHOD) return JSON.stringify({ type: "hello", seat: 3 });
  return JSON.stringify({ type: "ack", id: JSON.parse(call.payload).id });
};

test("it says hello to the bot, sends commands as RPC and passes the answers on", async () => {
  const room = new FakeRoom(ack);
  const got = [];
  const transport = connectRpcTransport(room, livekit, { onMessage: (m) => got.push(m) });
  await transport.ready;
  const id = transport.send("vote", { candidate: 5 });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(room.calls.map((c) => [c.destinationIdentity, c.method]),
    [["autohost-bot", HELLO_METHOD], ["autohost-bot", COMMAND_METHOD]]);
  assert.deepEqual(JSON.parse(room.calls[1].payload), { v: 1, id, type: "vote", candidate: 5 });
  assert.deepEqual(got, [{ type: "hello", seat: 3 }, { type: "ack", id }]);
});

test("views come only from the bot, whole or in parts, the newest parts winning", async () => {
  const room = new FakeRoom(ack);
  const got = [];
  const transport = connectRpcTransport(room, livekit, { onMessage: (m) => got.push(m) });
  await transport.ready;
  got.length = 0;
  const bot = { identity: "autohost-bot" };
  room.emit("data", encode('{"type": "state", "n": 1}'), { identity: "seat-4" }, 0, TOPIC);
  room.emit("data", encode('{"type": "state", "n": 2}'), bot, 0, TOPIC);
  const whole = JSON.stringify({ type: "state", n: 3, pad: "x".repeat(40) });
  const part = (seq, i, text) => encode(`{"seq": ${seq}, "part": ${i}, "parts": 2}\n${text}`);
  room.emit("data", part(1, 0, '{"type": "state", "n": 99'), bot, 0, PART_TOPIC);  // never ends
  room.emit("data", part(2, 0, whole.slice(0, 20)), bot, 0, PART_TOPIC);
  room.emit("data", part(2, 1, whole.slice(20)), bot, 0, PART_TOPIC);
  assert.deepEqual(got.map((m) => m.n), [2, 3]);
});

test("while no bot answers it tries again, and says hello when a bot joins", async () => {
  let refusals = 2;
  const room = new FakeRoom((call) => {
    if (refusals-- > 0) throw Object.assign(new Error("Recipient not found"), { code: 1401 });
    return ack(call);
  });
  const got = [];
  const transport = connectRpcTransport(room, livekit, { onMessage: (m) => got.push(m), timers: now });
  await transport.ready;
  assert.equal(room.calls.length, 3);
  assert.deepEqual(got, [{ type: "hello", seat: 3 }]);
  room.emit("joined", { identity: "seat-5" });  // not the bot: nothing
  room.emit("joined", { identity: "autohost-bot" });
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(room.calls.length, 4);
  assert.equal(room.calls[3].method, HELLO_METHOD);
});

test("an error that is not about the bot's absence is not retried; close stops listening", async () => {
  const room = new FakeRoom(() => { throw Object.assign(new Error("boom"), { code: 1500 }); });
  const got = [];
  const transport = connectRpcTransport(room, livekit, { onMessage: (m) => got.push(m), timers: now });
  await transport.ready;
  assert.equal(room.calls.length, 1);
  assert.equal(got[0].type, "error");
  transport.close();
  assert.equal(room.handlers.data.length, 0);
  assert.equal(transport.send("pass"), null);
});

test("a bot that has no table for us yet is asked again", async () => {
  let early = 1;
  const room = new FakeRoom((call) => {
    if (call.method === HELLO_METHOD && early-- > 0) {
      return JSON.stringify({ type: "error", error: "table_elsewhere" });
    }
    return ack(call);
  });
  const got = [];
  const transport = connectRpcTransport(room, livekit, { onMessage: (m) => got.push(m), timers: now });
  const answer = await transport.ready;
  assert.deepEqual(answer, { type: "hello", seat: 3 });
  assert.deepEqual(got.map((m) => m.type), ["error", "hello"]);
});

test("a bot that joins under a name of its own is called there; an impostor's name left", async () => {
  // The server's bot, replaced twice by an impostor under `autohost-bot`, joins again as
  // `autohost-bot-<random>`; the impostor is removed (issue 30).
  const room = new FakeRoom(ack);
  room.remoteParticipants = new Map([["autohost-bot", {}]]);
  const got = [];
  const transport = connectRpcTransport(room, livekit, { onMessage: (m) => got.push(m) });
  await transport.ready;
  room.remoteParticipants = new Map([["autohost-bot-0123456789ab", {}]]);
  room.emit("joined", { identity: "autohost-bot-0123456789ab" });
  await new Promise((resolve) => setTimeout(resolve, 5));
  room.emit("joined", { identity: "autohost-robot" });  // not a bot name: nothing
  transport.send("pass");
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(room.calls.map((c) => c.destinationIdentity),
    ["autohost-bot", "autohost-bot-0123456789ab", "autohost-bot-0123456789ab"]);
  got.length = 0;
  room.emit("data", encode('{"type": "state", "n": 7}'), { identity: "autohost-bot-0123456789ab" },
    0, TOPIC);
  assert.deepEqual(got.map((m) => m.n), [7]);
});
