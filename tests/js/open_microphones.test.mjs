// plugin/web/static/livekit/open-microphones.js: the host's page notices that no bot came
// back (the real RoomService calls are tested against the real server in
// tests/livekit/test_restarts.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { watchForBot } from "../../plugin/web/static/livekit/open-microphones.js";

test("the offer appears once no bot was in the room for a while, and goes when one is back", () => {
  let clock = 0;
  const timers = { Date: { now: () => clock }, setInterval: () => 1, clearInterval: () => {} };
  const room = { remoteParticipants: new Map([["autohost-bot", {}], ["seat-1", {}]]) };
  const changes = [];
  const watch = watchForBot(room, { seconds: 15, timers, onChange: (a) => changes.push(a) });
  clock = 20_000; watch.tick();
  assert.deepEqual(changes, []);  // the bot is there
  room.remoteParticipants.delete("autohost-bot");
  clock = 30_000; watch.tick();
  assert.deepEqual(changes, []);  // gone for 10 s only: a restart takes seconds
  room.remoteParticipants.set("autohost-robot", {});  // not a bot name
  clock = 36_000; watch.tick();
  assert.deepEqual(changes, [true]);
  room.remoteParticipants.set("autohost-bot-0123456789ab", {});  // a bot under its own name
  clock = 37_000; watch.tick();
  assert.deepEqual(changes, [true, false]);
  watch.stop();
});
