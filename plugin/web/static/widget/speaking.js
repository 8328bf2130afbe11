// Whose speech it is, as the server's view says (`speaking`, built from
// plugin/rules/sight.py): the pages keep no list of the speech phases of their own.

/** The seat whose speech (regular, defense, last word) runs now, or null. */
export function speechOf(view) {
  return view?.speaking?.speaker ?? null;
}

/** Whether the speech running now is `seat`'s (false for no seat: the host, a spectator). */
export function isSpeechOf(view, seat) {
  return seat != null && speechOf(view) === seat;
}
