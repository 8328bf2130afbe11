// The tournament pages' texts (issue 34, plugin/club/static/tournament-texts.js): every key
// in every language the club's pages speak, every placeholder kept, and every key a
// tournament page asks for is there.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { TEXTS } from "../../plugin/club/static/tournament-texts.js";

const STATIC = new URL("../../plugin/club/static/", import.meta.url).pathname;
const PAGES = ["tournament-play.js", "tournament-board.js", "tournament-admin.js"];
const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test("every language has every key, with the same placeholders", () => {
  assert.deepEqual(Object.keys(TEXTS).sort(), ["en", "ru", "uk"]);
  for (const lang of ["ru", "uk"]) {
    assert.deepEqual(Object.keys(TEXTS[lang]).sort(), Object.keys(TEXTS.en).sort(), lang);
    for (const [key, text] of Object.entries(TEXTS.en)) {
      assert.deepEqual(placeholders(TEXTS[lang][key]), placeholders(text), `${lang} ${key}`);
    }
  }
});

test("every key a tournament page asks for is in the catalogue", () => {
  for (const page of PAGES) {
    const source = readFileSync(STATIC + page, "utf8");
    const asked = [...source.matchAll(/\btt\("([\w.]+)"/g)].map((m) => m[1]);
    assert.ok(asked.length > 0, page);
    for (const key of asked) assert.ok(key in TEXTS.en, `${page}: ${key}`);
  }
});
