// embedded/ice.js: where a page asks for its ICE servers, and what it makes of the answer.
import assert from "node:assert/strict";
import { test } from "node:test";

import { iceConfiguration, iceUrlBeside } from "../../plugin/web/static/embedded/ice.js";

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
