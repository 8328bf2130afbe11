// DEPRECATED, used by no page: the night rule as the pages once worked it out for
// themselves from the phase and the black seats. Kept only because
// tests/e2e/test_video.py::test_the_page_and_the_server_apply_the_same_night_rule imports
// `mayLink` from video.js; the pages now follow the view's `video` field (link.js), built
// by the server from plugin/rules/sight.py, and tests/web/test_video.py checks that the
// view and the relay agree. Delete this file and its export in video.js with that test.

const NIGHT = new Set([
  "black_meeting", "don_meeting", "sheriff_meeting", "free_seating", "shot", "don_check",
  "sheriff_check",
]);

function awake(phase, who, black) {
  if (phase == null) return false;
  if (!NIGHT.has(phase)) return true;
  return phase === "black_meeting" && (who === "host" || black.has(who));
}

/** Whether pages `a` and `b` may exchange video in `phase` (sight.py `may_link`). */
export function mayLink(phase, a, b, black) {
  return a !== b && awake(phase, a, black) && awake(phase, b, black);
}
