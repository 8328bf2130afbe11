// Who may link with whom, as the server's view says (plugin/rules/sight.py, docs/video.md
// "the night rule"): the page never works it out from the phase or the roles itself.
//
// view.video = {awake, peers, spectators}: `awake`, whether this page may send and show its
// own camera; `peers`, everyone (seats, then "host") it may exchange video with now;
// `spectators`, whether it sends its camera to the spectators ("watch:<n>") now (by day).

/** What a view lets this page see: {awake, peers: Set}. No view yet: nobody, not even
 * itself (a page loaded at night must not link before it knows it is night). */
export function sightOf(view) {
  const video = view?.video;
  return {
    awake: Boolean(video?.awake),
    peers: new Set(video?.peers ?? []),
    spectators: Boolean(video?.spectators),
  };
}

export const isSpectator = (who) => typeof who === "string" && who.startsWith("watch:");

/** Whether this page may exchange video with `who` (a seat, "host" or a spectator). */
export function sees(sight, who) {
  return isSpectator(who) ? sight.spectators : sight.peers.has(who);
}

const rank = (who) => (who === "host" ? 0 : who);

/** Perfect negotiation's roles: the lower of the two is polite (the host is the lowest);
 * a spectator always is (he only receives). */
export function isPolite(me, other) {
  if (isSpectator(me) || isSpectator(other)) return isSpectator(me);
  return rank(me) < rank(other);
}
