// The countdown shown on the speaker's tile and in the header: the server sends the time
// left with every state (view.clock); the page counts it down between states.

export class Countdown {
  constructor() {
    this.remaining = null;
    this.running = false;
    this.at = 0;
  }

  /** Take the clock of a new view. */
  update(clock) {
    this.remaining = clock ? clock.remaining : null;
    this.running = Boolean(clock && clock.running);
    this.at = performance.now();
  }

  /** Whole seconds left now (rounded up), or null without a timer. */
  seconds() {
    if (this.remaining == null) return null;
    const elapsed = this.running ? (performance.now() - this.at) / 1000 : 0;
    return Math.max(0, Math.ceil(this.remaining - elapsed));
  }
}

export function formatSeconds(seconds) {
  if (seconds == null) return "";
  const m = Math.floor(seconds / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return `${m}:${s}`;
}
