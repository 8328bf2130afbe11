// The video mesh's signalling socket, `/video` (plugin/web/video.py), on the pages' one
// reconnect loop (socket/reconnecting.js); its first message is the page's hello (token).
//
// Returns {connection, welcomed}: `welcomed` resolves on the first `welcome`; a socket that
// closes before it rejects it (the token or table was refused, or no server is there). Later closes are reopened with the
// shared backoff unless final: 4401/4404, or `final()` says so (another tab of the same
// seat took over). `onDown(event)` hears of every close of a live socket.

import { hello, reconnecting, retryable } from "../socket/reconnecting.js";

export function openSignalling(url, { token, onMessage, onDown, final = () => false },
                               options = {}) {
  let welcomed = false;
  let settle;
  const welcome = new Promise((resolve, reject) => {
    settle = { resolve, reject };
  });
  const connection = reconnecting(url, {
    onOpen: () => {
      if (token) connection.send(hello(token));
    },
    onMessage(data) {
      let message;
      try {
        message = JSON.parse(data);
      } catch (_) {
        return;
      }
      if (message.type === "welcome" && !welcomed) {
        welcomed = true;
        settle.resolve(message);
      }
      onMessage(message);
    },
    onClose(event) {
      if (welcomed) onDown?.(event);
    },
    retry(event) {
      if (!welcomed) {
        settle.reject(new Error(`video signalling closed: ${event.code} ${event.reason}`));
        return false;
      }
      return retryable(event) && !final();
    },
  }, options);
  return { connection, welcomed: welcome };
}
