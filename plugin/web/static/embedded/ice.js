// The page's ICE configuration: the server's STUN and TURN servers, with TURN credentials
// minted for this page load (plugin/web/ice.py). They come from `POST /api/ice` with the
// page's token in a header, so no page source, URL or log holds them.
//
//   const config = await iceConfiguration(iceUrl, token);
//   new RTCPeerConnection(config);   // {iceServers, iceTransportPolicy}

const CLOSED_NETWORK = Object.freeze({ iceServers: [] });

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
  return {
    iceServers: Array.isArray(body.iceServers) ? body.iceServers : [],
    iceTransportPolicy: body.iceTransportPolicy === "relay" ? "relay" : "all",
  };
}
