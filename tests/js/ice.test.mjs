// embedded/ice.js: where a page asks for its ICE servers, and what it makes of the answer.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { iceConfiguration, iceUrlBeside, keepIceFresh } from "../../plugin/web/static/embedded/ice.js";

test("the ICE endpoint sits at the server's base, whatever the page's route", () => {
  assert.equal(iceUrlBeside("https://m.example.org/rtc/t1/offer", 3), "https://m.example.org/api/ice");
  assert.equal(iceUrlBeside("wss://m.example.org/club/video", 1), "https://m.example.org/club/api/ice");
  assert.equal(iceUrlBeside("ws://127.0.0.1:8000/video?x=1", 1), "http://127.0.0.1:8000/api/ice");
});

test("the token goes in a header, and the answer becomes an RTCConfiguration", async () => {
  const calls = [];
  globalThis.fetch = async (url, init) => {
    calls.push([url, init]);
    return { ok: true, status: 200, json: async () => ({
      iceServers: [{ urls: ["turn:t:3478"], username: "1:a", credential: "c" }],
      iceTransportPolicy: "relay",
    }) };
  };
  const config = await iceConfiguration("https://m/api/ice", "tok");
  assert.deepEqual(config.iceTransportPolicy, "relay");
  assert.equal(config.iceServers[0].username, "1:a");
  assert.equal(calls[0][0], "https://m/api/ice");
  assert.equal(calls[0][1].headers.authorization, "Bearer tok");
});

test("no endpoint (404) or no network: no servers, host candidates only", async () => {
  globalThis.fetch = async () => ({ ok: false, status: 404 });
  assert.deepEqual(await iceConfiguration("https://m/api/ice", "t"), { iceServers: [] });
  globalThis.fetch = async () => { throw new TypeError("network"); };
  const warn = console.warn;
  console.warn = () => {};
  try {
    assert.deepEqual(await iceConfiguration("https://m/api/ice", "t"), { iceServers: [] });
  } finally {
    console.warn = warn;
  }
});

test("a page keeps its TURN credential fresh at half its lifetime, and stops when told", async () => {
  // Issue 31: a credential lives `ttl` seconds (short: a re-issued seat's old device cannot
  // relay for long), so a page that stays asks again at half of it; a refusal (the link
  // was re-issued, or the network) is tried again after a tenth, and nothing is handed on.
  let answers = 0;
  let refuse = false;
  globalThis.fetch = async () => {
    if (refuse) return { ok: false, status: 401 };
    answers += 1;
    return { ok: true, status: 200, json: async () => ({
      iceServers: [{ urls: ["turn:t:3478"], username: `${answers}:a`, credential: "c" }],
      iceTransportPolicy: "all", ttl: 10,
    }) };
  };
  const first = await iceConfiguration("https://m/api/ice", "tok");
  mock.timers.enable({ apis: ["setTimeout"] });
  const warn = console.warn;
  console.warn = () => {};
  try {
    const fresh = [];
    const stop = keepIceFresh("https://m/api/ice", "tok", first, (c) => fresh.push(c));
    const settle = async () => { for (let i = 0; i < 5; i += 1) await Promise.resolve(); };
    mock.timers.tick(4999);
    await settle();
    assert.equal(fresh.length, 0);
    mock.timers.tick(1);
    await settle();
    assert.deepEqual(fresh.map((c) => c.iceServers[0].username), ["2:a"]);
    refuse = true;
    mock.timers.tick(5000);
    await settle();
    assert.equal(fresh.length, 1); // refused: nothing handed on
    refuse = false;
    mock.timers.tick(1000); // tried again a tenth of the lifetime later
    await settle();
    assert.deepEqual(fresh.map((c) => c.iceServers[0].username), ["2:a", "3:a"]);
    stop();
    mock.timers.tick(60_000);
    await settle();
    assert.equal(fresh.length, 2);
    // No TURN (no lifetime): nothing to keep fresh.
    const none = keepIceFresh("https://m/api/ice", "tok", { iceServers: [] }, (c) => fresh.push(c));
    mock.timers.tick(60_000);
    await settle();
    assert.equal(fresh.length, 2);
    none();
  } finally {
    console.warn = warn;
    mock.timers.reset();
  }
});
