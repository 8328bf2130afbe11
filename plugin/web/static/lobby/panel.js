// The console's lobby panel (issue 17): the invite link with a copy button, who waits,
// and the host's choices: seat one by hand, everyone in order of arrival or at random, and
// approve or refuse a second device. It has its own socket to /lobby (the host's token in
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
                     [element("span", { className: "who", textContent: entry.name }), select, seat]);
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
    root.replaceChildren(
      element("h2", { textContent: t("lobby.panel") }),
      element("div", { className: "invite-row" }, [invite, copyButton]),
      element("p", { className: "muted", textContent: lobby.entries.length
        ? t("lobby.waiting_n", { n: lobby.entries.length }) : t("lobby.nobody") }),
      element("ul", { id: "lobby-entries", className: "lobby-list" }, rows),
      element("div", { className: "lobby-actions" }, [byArrival, atRandom]),
      ...(requests.length ? [element("ul", { id: "lobby-requests", className: "lobby-list" },
                                     requests)] : []),
    );
  }

  return { close: () => connection.close(), render, get lobby() { return lobby; } };
}
