// The page's ICE configuration: the server's STUN and TURN servers, with TURN credentials
// minted for this page load (plugin/web/ice.py). They come from `POST /api/ice` with the
// page's token in a header, so no page source, URL or log holds them.
//
//   const config = await iceConfiguration(iceUrl, token);
//   new RTCPeerConnection(config);   // {iceServers, iceTransportPolicy}

const CLOSED_NETWORK = Object.freeze({ iceServers: [] });
// A configuration -> the seconds its TURN credential lives (the server's `ttl`).
const LIFETIMES = new WeakMap();
const RETRY_SHARE = 0.1; // a refresh that failed is tried again after this share of the ttl

/** The /api/ice address of the server that serves `url` (http(s) or ws(s)), whose path
 * is `<base>/<depth segments>`: "/rtc/t1/offer" is 3 deep, "/video" 1. */
export function iceUrlBeside(url, depth) {
  const address = new URL(url, globalThis.location?.href);
  if (address.protocol === "ws:") address.protocol = "http:";
  if (address.protocol === "wss:") address.protocol = "https:";
  const parts = address.pathname.split("/");
  address.pathname = [...parts.slice(0, parts.length - depth), "api", "ice"].join("/");
  address.search = "";
  address.hash = "";
  return address.toString();
}

/** The RTCConfiguration for this page; a server without /api/ice (a test server, an old
 * release) gives no servers: host candidates only, as on a LAN. */
export async function iceConfiguration(iceUrl, token) {
  let response;
  try {
    response = await fetch(iceUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      cache: "no-store",
    });
  } catch (error) {
    console.warn("ice: no configuration, host candidates only", error);
    return CLOSED_NETWORK;
  }
  if (!response.ok) {
    if (response.status !== 404) console.warn("ice: refused", response.status);
    return CLOSED_NETWORK;
  }
  const body = await response.json();
  const config = {
    iceServers: Array.isArray(body.iceServers) ? body.iceServers : [],
    iceTransportPolicy: body.iceTransportPolicy === "relay" ? "relay" : "all",
  };
  if (Number.isFinite(body.ttl) && body.ttl > 0) LIFETIMES.set(config, body.ttl);
  return config;
}

/** Keep a page's TURN credential fresh while it stays (issue 31): a credential lives only
 * `ttl` seconds (so a re-issued seat's old device cannot allocate a relay for long), and
 * at half of it the page asks the server again with its token; the server refuses a
 * re-issued link. Each fresh configuration goes to `onFresh`. A configuration without a
 * lifetime (no TURN) needs nothing. Returns the function that stops it. */
export function keepIceFresh(iceUrl, token, config, onFresh) {
  let timer = null;
  let stopped = false;
  const schedule = (ttl, share) => {
    timer = setTimeout(async () => {
      const fresh = await iceConfiguration(iceUrl, token);
      if (stopped) return;
      const lives = LIFETIMES.get(fresh);
      if (lives == null) {
        schedule(ttl, RETRY_SHARE); // refused, or the network: again a little later
        return;
      }
      onFresh(fresh);
      schedule(lives, 0.5);
    }, ttl * share * 1000);
  };
  const ttl = LIFETIMES.get(config);
  if (ttl != null) schedule(ttl, 0.5);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
