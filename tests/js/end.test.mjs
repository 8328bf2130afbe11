// plugin/web/static/end/end.js: every text of the end screen is a catalogue key that the
// three languages have, for every kind of timeline item, exit, result and reason.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { itemText, momentText } from "../../plugin/web/static/end/end.js";

const catalogues = Object.fromEntries(["uk", "ru", "en"].map((lang) => [
  lang,
  JSON.parse(readFileSync(new URL(`../../plugin/web/static/i18n/${lang}.json`, import.meta.url))),
]));

function recorder() {
  const keys = [];
  const t = (key, params = {}) => {
    keys.push(key);
    return catalogues.uk[key]?.replace(/\{(\w+)\}/g, (_, name) => String(params[name])) ?? key;
  };
  return { t, keys };
}

const ITEMS = [
  { kind: "vote", seat: 3, day: 1 },
  { kind: "killed", seat: 5, night: 1 },
  { kind: "fouls", seat: 6, day: 2 },
  { kind: "disqualified", seat: 7, day: 2 },
  { kind: "left", seat: 8, night: 2 },
  { kind: "foul", seat: 6, day: 2 },
  { kind: "sheriff_check", target: 7, found: true, night: 1 },
  { kind: "sheriff_check", target: 4, found: false, night: 2 },
  { kind: "don_check", target: 2, found: true, night: 1 },
  { kind: "don_check", target: 4, found: false, night: 2 },
  { kind: "best_move", seat: 5, named: [7, 8, 1], correct: 2, day: 2 },
];

test("every timeline item and moment is a key of all three catalogues", () => {
  const { t, keys } = recorder();
  for (const item of ITEMS) {
    itemText(item, t);
    momentText(item, t);
  }
  const extra = ["winner.city", "winner.mafia", "winner.draw", "winner.none", "end.title",
    "end.seats", "end.timeline", "end.empty", "end.in_game", "end.fouls", "end.protocol_html",
    "end.protocol_json", "end.next_game", "end.next_game_hint", "end.moving",
    ...["no_black_left", "black_parity", "quiet_rounds", "host", "vote_done"].map((w) => `end.why.${w}`),
    ...["vote", "killed", "fouls", "disqualified", "left"].map((how) => `end.out.${how}`)];
  for (const key of [...keys, ...extra]) {
    for (const [lang, texts] of Object.entries(catalogues)) {
      assert.ok(key in texts, `${key} is missing in ${lang}.json`);
    }
  }
});

test("the texts name the seats and the checks' results", () => {
  const { t } = recorder();
  assert.equal(itemText(ITEMS[1], t), "5 убитий вночі");
  assert.equal(itemText(ITEMS[6], t), "шериф перевіряє 7: чорний");
  assert.equal(itemText(ITEMS[9], t), "дон перевіряє 4: не шериф");
  assert.equal(itemText(ITEMS[10], t), "кращий хід 5: 7, 8, 1, чорних: 2");
  assert.equal(momentText(ITEMS[1], t), "Ніч 1");
  assert.equal(momentText(ITEMS[0], t), "День 1");
});
