// plugin/web/static/widget/speaking.js: whose speech it is, from the view alone.
import assert from "node:assert/strict";
import { test } from "node:test";

import { isSpeechOf, speechOf } from "../../plugin/web/static/widget/speaking.js";

test("the speech is the view's speaking.speaker, whatever the phase is called", () => {
  assert.equal(speechOf({ phase: "defense", speaking: { speaker: 4, seats: [4] } }), 4);
  assert.equal(speechOf({ phase: "brand_new_speech", speaking: { speaker: 2, seats: [2] } }), 2);
});

test("no speech: outside a speech, and the engine's bare speaker alone does not count", () => {
  assert.equal(speechOf({ phase: "voting", speaker: 3, speaking: { speaker: null, seats: [] } }),
    null);
  assert.equal(speechOf({ phase: "speech", speaker: 3 }), null); // no speaking field
  assert.equal(speechOf(null), null);
});

test("isSpeechOf is false for a page without a seat", () => {
  const view = { speaking: { speaker: 5, seats: [5] } };
  assert.equal(isSpeechOf(view, 5), true);
  assert.equal(isSpeechOf(view, 6), false);
  assert.equal(isSpeechOf(view, undefined), false);
  assert.equal(isSpeechOf({ speaking: { speaker: null, seats: [] } }, null), false);
});
