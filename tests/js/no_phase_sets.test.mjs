// The pages keep no copy of the rules' phase sets: whose speech it is and who may see whom
// come in the view (`speaking`, `video`, plugin/rules/sight.py). This fails when a page
// module names a speech or night phase again.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const STATIC = new URL("../../plugin/web/static/", import.meta.url).pathname;
// Used by no page; kept for tests/e2e/test_video.py until that test goes (see the file).
const ALLOWED = new Set(["video/night-rule.js"]);
// Not "don_check" and "sheriff_check": they are also the names of `me.action`, which the
// widget reads to show its night buttons.
const PHASES = ["black_meeting", "don_meeting", "sheriff_meeting", "free_seating", "shot",
  "morning_last_word", "last_word", "defense"];

function modules(dir, prefix = "") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const name = prefix + entry.name;
    if (entry.isDirectory()) return modules(join(dir, entry.name), `${name}/`);
    return name.endsWith(".js") ? [name] : [];
  });
}

test("no page module names a speech or night phase", () => {
  const found = modules(STATIC).filter((name) => !ALLOWED.has(name)).flatMap((name) => {
    const text = readFileSync(join(STATIC, name), "utf8");
    return PHASES.filter((phase) => new RegExp(`["'\`]${phase}["'\`]`).test(text))
      .map((phase) => `${name}: "${phase}"`);
  });
  assert.deepEqual(found, []);
});

test("the scan sees the page modules (it would notice a copy)", () => {
  const names = modules(STATIC);
  for (const name of ["widget/widget.js", "widget/tiles.js", "video/video.js", "video/link.js"]) {
    assert.ok(names.includes(name), name);
  }
  const legacy = readFileSync(join(STATIC, "video/night-rule.js"), "utf8");
  assert.match(legacy, /"black_meeting"/, "the scan's pattern matches a phase set");
});
