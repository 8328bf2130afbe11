// plugin/web/static/lobby/device.js: the device secret a browser keeps per table.
import assert from "node:assert/strict";
import { test } from "node:test";

import { deviceSecret, forgetMember, memberToken } from "../../plugin/web/static/lobby/device.js";

function storage(initial = {}) {
  const values = new Map(Object.entries(initial));
  return {
    getItem: (k) => values.get(k) ?? null,
    setItem: (k, v) => values.set(k, v),
    removeItem: (k) => values.delete(k),
    values,
  };
}

test("a device secret is made once per table and kept", () => {
  const kept = storage();
  const first = deviceSecret("t1", kept);
  assert.match(first, /^[0-9a-f]{48}$/);
  assert.equal(deviceSecret("t1", kept), first);
  assert.notEqual(deviceSecret("t2", kept), first);
  assert.equal(kept.values.get("autohost.device:t1"), first);
});

test("a kept value the server would refuse is replaced", () => {
  const kept = storage({ "autohost.device:t1": "short" });
  const secret = deviceSecret("t1", kept);
  assert.notEqual(secret, "short");
  assert.match(secret, /^[0-9a-f]{48}$/);
});

test("a club member's personal link is read from the browser, and forgotten when refused", () => {
  const kept = storage({ "autohost.member": "personal.token" });
  assert.equal(memberToken(kept), "personal.token");
  forgetMember(kept);
  assert.equal(memberToken(kept), null);
  assert.equal(memberToken(storage()), null); // a guest: nothing kept
});
