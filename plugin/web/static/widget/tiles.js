// Seat tiles, shared by the player widget and the host console.
//
// Every seat gets one tile, made once and updated in place on each state: a video
// container (issue 8 fills it, or it stays dark), and an overlay with the seat's number,
// name, state (out, speaking with a countdown, microphone open), fouls, the live tally
// during a vote, and the buttons the page puts there. Seed 004: the candidates tied at
// the top are outlined in yellow while the vote is still open (view.vote.round.tied), and
// nobody is labelled "eliminated" on a tie; the label shows only after the vote
// (view.vote.eliminated).

import { formatSeconds } from "./clock.js";
import { speechOf } from "./speaking.js";

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text != null) node.textContent = text;
  return node;
}

// A microphone glyph drawn in SVG: emoji fonts are missing on many machines.
function micIcon() {
  const span = element("span", "mic");
  span.innerHTML =
    '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><rect x="9" y="3" width="6" height="11" rx="3" fill="currentColor"/><path d="M6 11a6 6 0 0 0 12 0M12 17v4M9 21h6" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round"/></svg>';
  return span;
}

function makeTile(seat) {
  const tile = element("section", "tile");
  tile.dataset.seat = String(seat);
  const video = element("div", "video");
  video.dataset.seat = String(seat);
  const overlay = element("div", "overlay");
  const top = element("div", "tile-top");
  top.append(
    element("span", "num", String(seat)),
    element("span", "name"),
    element("span", "role-tag"),
    micIcon(),
  );
  const middle = element("div", "tile-middle");
  middle.append(element("span", "countdown"), element("span", "tally"), element("span", "label"));
  const bottom = element("div", "tile-bottom");
  bottom.append(element("span", "fouls"), element("div", "buttons"));
  overlay.append(top, middle, bottom);
  tile.append(video, overlay);
  return tile;
}

/** Make sure `grid` holds one tile per seat; returns seat → tile. */
export function ensureTiles(grid, seats) {
  if (grid.children.length !== seats) {
    grid.replaceChildren(...Array.from({ length: seats }, (_, i) => makeTile(i + 1)));
    grid.dataset.seats = String(seats);
  }
  return (seat) => grid.querySelector(`.tile[data-seat="${seat}"]`);
}

/**
 * Update every tile from `view`.
 * options: { t, me (seat or null), seconds (countdown now), roleOf(seat) → role|null,
 *            buttonsFor(seat) → [{label, onClick, className, disabled}] , voted (seat I voted for) }
 */
export function renderTiles(grid, view, options) {
  const { t } = options;
  const seats = view.table?.seats ?? view.players;
  const tileFor = ensureTiles(grid, seats);
  const alive = new Set(view.alive);
  const speakers = new Set(view.speakers);
  const round = view.vote?.round ?? null;
  const open = Boolean(round?.open);
  const candidates = new Set(round && round.kind !== "lift" ? round.candidates : []);
  const tied = new Set(round?.tied ?? []);
  const eliminated = new Set(open ? [] : (view.vote?.eliminated ?? []));
  // round.voters: who may vote in this round; round.waiting: who has not voted yet.
  const waiting = new Set(round?.waiting ?? []);
  const voters = new Set((round?.voters ?? []).filter((seat) => !waiting.has(seat)));
  const names = view.table?.names ?? [];
  const present = new Set(view.table?.present ?? []);
  const connected = new Set(view.table?.connected ?? []);
  const speaking = speechOf(view); // the seat whose speech runs (its tile counts down)

  for (let seat = 1; seat <= seats; seat++) {
    const tile = tileFor(seat);
    const isOut = !alive.has(seat) && view.phase !== "lobby";
    tile.classList.toggle("out", isOut);
    tile.classList.toggle("me", seat === options.me);
    tile.classList.toggle("speaking", seat === speaking);
    tile.classList.toggle("mic-open", speakers.has(seat));
    tile.classList.toggle("candidate", open && candidates.has(seat));
    tile.classList.toggle("tied", open && tied.has(seat));
    tile.classList.toggle("eliminated", eliminated.has(seat));
    tile.classList.toggle("voted", open && voters.has(seat));
    tile.classList.toggle("my-choice", open && options.voted === seat);
    tile.classList.toggle("absent", !present.has(seat) && !connected.has(seat));

    const name = names[seat - 1] ?? String(seat);
    tile.querySelector(".name").textContent =
      (name === String(seat) ? "" : name) + (seat === options.me ? ` (${t("you")})` : "");
    const role = options.roleOf?.(seat) ?? null;
    const roleTag = tile.querySelector(".role-tag");
    roleTag.textContent = role ? t(`role.${role}`) : "";
    roleTag.dataset.role = role ?? "";
    tile.querySelector(".mic").title = t("mic_open");

    const countdown = tile.querySelector(".countdown");
    countdown.textContent = seat === speaking ? formatSeconds(options.seconds) : "";

    const tally = tile.querySelector(".tally");
    if (round && round.kind !== "lift" && candidates.has(seat)) {
      tally.textContent = String(round.tally?.[String(seat)] ?? 0);
      tally.hidden = false;
    } else {
      tally.textContent = "";
      tally.hidden = true;
    }

    const label = tile.querySelector(".label");
    label.textContent = eliminated.has(seat)
      ? t("eliminated")
      : isOut
        ? t("out")
        : open && tied.has(seat)
          ? t("tie")
          : "";

    const fouls = view.fouls?.[String(seat)] ?? 0;
    const foulNode = tile.querySelector(".fouls");
    foulNode.textContent = fouls ? "●".repeat(fouls) : "";
    foulNode.title = `${t("fouls")}: ${fouls}`;
    foulNode.dataset.count = String(fouls);

    const buttons = tile.querySelector(".buttons");
    const wanted = options.buttonsFor?.(seat) ?? [];
    buttons.replaceChildren(
      ...wanted.map((spec) => {
        const button = element("button", `tile-btn ${spec.className ?? ""}`, spec.label);
        button.type = "button";
        button.disabled = Boolean(spec.disabled);
        if (spec.title) button.title = spec.title;
        button.addEventListener("click", spec.onClick);
        return button;
      }),
    );
  }
  return tileFor;
}

/** A short message at the bottom of the page (errors from the server, for a few seconds). */
export function toast(node, text, ms = 3500) {
  node.textContent = text;
  node.hidden = false;
  clearTimeout(node._timer);
  node._timer = setTimeout(() => {
    node.hidden = true;
  }, ms);
}

export function phaseTitle(view, t) {
  let title = t(`phase.${view.phase}`);
  if (view.over && view.winner) title = `${title}: ${t(`winner.${view.winner}`)}`;
  return title;
}

export function dayTitle(view, t) {
  if (view.night != null) return t("night", { n: view.night });
  if (view.day) return t("day", { n: view.day });
  return "";
}

/** The vote as one line for the console and the spectators: the round's tallies (or the
 * lift's for and against) and who is still awaited, else the day's nominations. */
export function voteSummary(view, t) {
  const round = view.vote?.round;
  const title = round ? (round.number > 1 ? t("vote.revote") : t("vote.title")) : view.nominations?.length ? t("nominations") : t(`phase.${view.phase}`);
  let info = "";
  if (round) {
    if (round.kind === "lift") {
      info = `${t("lift.for")}: ${round.lift?.for ?? 0} · ${t("lift.against")}: ${round.lift?.against ?? 0}`;
    } else {
      info = round.candidates.map((c) => `${c}: ${round.tally?.[String(c)] ?? 0}`).join(" · ");
    }
    if (round.open) info += ` — ${t("vote.waiting", { n: round.waiting.length })}`;
  } else if (view.nominations?.length) {
    info = view.nominations.map(([by, target]) => `${by} → ${target}`).join(", ");
  }
  return { title, info };
}
