// The console's lobby panel (issue 17): the invite link with a copy button, who waits,
// and the host's choices: seat one by hand, everyone in order of arrival or at random, and
// approve or refuse a second device; (issue 31) who is seated, whose device is away, and
// unseat, remove and clear. It has its own socket to /lobby (the host's token in
// its hello). Names are shown with textContent, never as HTML.

import { reconnecting } from "../socket/reconnecting.js";
import { lobbyUrl } from "./device.js";

function element(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

/** Start the panel in `root` (a .card section); t is the console's translator. */
export function startLobbyPanel({ root, token, tableId, t, onError }) {
  let lobby = null;
  const connection = reconnecting(lobbyUrl(), {
    onOpen: () => connection.send(JSON.stringify({ type: "hello", token, table: tableId })),
    onMessage: (data) => {
      let message;
      try {
        message = JSON.parse(data);
      } catch (_) {
        return;
      }
      if (message.type === "error") onError?.(message);
      else if (message.type === "lobby") {
        lobby = message;
        render();
      }
    },
  });
  const send = (type, fields = {}) => connection.send(JSON.stringify({ type, ...fields }));

  async function copy(input, button) {
    try {
      await navigator.clipboard.writeText(input.value);
    } catch (_) {
      input.select();
      document.execCommand("copy");
    }
    button.textContent = t("lobby.copied");
    setTimeout(() => { button.textContent = t("lobby.copy"); }, 1500);
  }

  /** A player's name, and whether his device is in the lobby now (`online`). */
  function who(entry) {
    const name = element("span", { className: "who", textContent: entry.name });
    if (entry.online === false) {
      name.classList.add("away");
      name.title = t("lobby.away");
    }
    return name;
  }

  function removeButton(entry) {
    const remove = element("button", { type: "button", className: "tool danger lobby-remove",
                                       textContent: t("lobby.remove") });
    remove.addEventListener("click", () => send("remove", { entry: entry.entry }));
    return remove;
  }

  function render() {
    if (!lobby) return;
    const page = new URL("join", location.href); // beside the console: /t/{table}/join
    const link = `${page.origin}${page.pathname}#token=${lobby.invite}`;
    const invite = element("input", { id: "invite-link", readOnly: true, value: link });
    const copyButton = element("button", { id: "invite-copy", type: "button", className: "tool",
                                           textContent: t("lobby.copy") });
    copyButton.addEventListener("click", () => copy(invite, copyButton));
    const rows = lobby.entries.map((entry) => {
      const select = element("select", { className: "lobby-seat" },
        lobby.free.map((seat) => element("option", { value: String(seat),
                                                     textContent: t("lobby.seat_n", { seat }) })));
      const seat = element("button", { type: "button", className: "tool lobby-seat-one",
                                       textContent: t("lobby.seat_one") });
      seat.addEventListener("click", () => send("seat", { entry: entry.entry,
                                                          seat: Number(select.value) }));
      seat.disabled = lobby.free.length === 0;
      return element("li", { className: "lobby-entry" },
                     [who(entry), select, seat, removeButton(entry)]);
    });
    // The seated players (issue 31): the host may take one off his seat (his seat's link is
    // re-issued) or out of the lobby.
    const sitting = (lobby.seated ?? []).map((entry) => {
      const unseat = element("button", { type: "button", className: "tool lobby-unseat",
                                         textContent: t("lobby.unseat") });
      unseat.addEventListener("click", () => send("unseat", { entry: entry.entry }));
      const where = element("span", { className: "muted",
                                      textContent: t("lobby.seat_n", { seat: entry.seat }) });
      return element("li", { className: "lobby-seated" },
                     [who(entry), where, unseat, removeButton(entry)]);
    });
    const requests = lobby.requests.map((request) => {
      const approve = element("button", { type: "button", className: "tool lobby-approve",
                                          textContent: t("lobby.approve") });
      const refuse = element("button", { type: "button", className: "tool danger lobby-refuse",
                                         textContent: t("lobby.refuse") });
      approve.addEventListener("click", () => send("approve", { request: request.request }));
      refuse.addEventListener("click", () => send("refuse", { request: request.request }));
      const text = t("lobby.device_asks", { name: request.name, seat: request.seat });
      return element("li", { className: "lobby-request" },
                     [element("span", { className: "who", textContent: text }), approve, refuse]);
    });
    const byArrival = element("button", { id: "seat-arrival", type: "button", className: "tool",
                                          textContent: t("lobby.seat_arrival") });
    const atRandom = element("button", { id: "seat-random", type: "button", className: "tool",
                                         textContent: t("lobby.seat_random") });
    byArrival.addEventListener("click", () => send("seat_waiting", { order: "arrival" }));
    atRandom.addEventListener("click", () => send("seat_waiting", { order: "random" }));
    byArrival.disabled = atRandom.disabled = !lobby.entries.length || !lobby.free.length;
    const clear = element("button", { id: "lobby-clear", type: "button", className: "tool danger",
                                      textContent: t("lobby.clear") });
    clear.addEventListener("click", () => send("clear"));
    clear.disabled = !lobby.entries.length && !lobby.requests.length;
    root.replaceChildren(
      element("h2", { textContent: t("lobby.panel") }),
      element("div", { className: "invite-row" }, [invite, copyButton]),
      element("p", { className: "muted", textContent: lobby.entries.length
        ? t("lobby.waiting_n", { n: lobby.entries.length }) : t("lobby.nobody") }),
      element("ul", { id: "lobby-entries", className: "lobby-list" }, rows),
      element("div", { className: "lobby-actions" }, [byArrival, atRandom, clear]),
      ...(sitting.length ? [element("ul", { id: "lobby-seated", className: "lobby-list" },
                                    sitting)] : []),
      ...(requests.length ? [element("ul", { id: "lobby-requests", className: "lobby-list" },
                                     requests)] : []),
    );
  }

  return { close: () => connection.close(), render, get lobby() { return lobby; } };
}
