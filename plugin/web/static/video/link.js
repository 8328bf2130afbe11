// Who may link with whom, as the server's view says (plugin/rules/sight.py, docs/video.md
// "the night rule"): the page never works it out from the phase or the roles itself.
//
// view.video = {awake, peers}: `awake`, whether this page may send and show its own camera;
// `peers`, everyone (seats, then "host") it may exchange video with now.

/** What a view lets this page see: {awake, peers: Set}. No view yet: nobody, not even
 * itself (a page loaded at night must not link before it knows it is night). */
export function sightOf(view) {
  const video = view?.video;
  return { awake: Boolean(video?.awake), peers: new Set(video?.peers ?? []) };
}

/** Whether this page may exchange video with `who` (a seat or "host") under `sight`. */
export function sees(sight, who) {
  return sight.peers.has(who);
}

const rank = (who) => (who === "host" ? 0 : who);

/** Perfect negotiation's roles: the lower of the two is polite (the host is the lowest). */
export function isPolite(me, other) {
  return rank(me) < rank(other);
}
