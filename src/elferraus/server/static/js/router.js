// Which screen an address shows:
//   /            the lobby: create a game or enter a room code
//   /r/CODE      a room: seats before the start, then the table, then the result
//   /replay/ID   the replay viewer of a finished game
//   /rules       the rules in short
// Only the room's modules come with the page; the others load when asked for.

import { RoomScreen } from "./room.js";

/** The screen for this address, drawn into `root`; `ctx`: what every screen may use of the frame. */
export async function route(root, ctx) {
  const path = location.pathname.replace(/\/index\.html$/, "/");
  let match;
  if ((match = /^\/r\/([A-Za-z0-9]+)\/?$/.exec(path))) {
    return new RoomScreen(root, match[1].toUpperCase(), ctx);
  }
  if ((match = /^\/replay\/([^/]+)\/?$/.exec(path))) {
    const { ReplayScreen } = await import("./replay.js");
    return new ReplayScreen(root, decodeURIComponent(match[1]), ctx);
  }
  if (/^\/rules\/?$/.test(path)) {
    const { RulesScreen } = await import("./rules.js");
    return new RulesScreen(root, ctx);
  }
  const { Lobby } = await import("./lobby.js");
  return new Lobby(root, ctx);
}
