// The state of the page, in one place: the room it shows, the reader's token
// and seat there, and the newest `state` frame of that room with the model
// the screens draw from it. Every frame is the whole truth, the newest wins (but for the move log,
// whose earlier lines the connection sent before).

import { seatName } from "./i18n.js";
import { sortCards } from "./board.js";

export const page = {
  code: null,
  token: null,
  /** The reader's seat (null: watching, or not known yet). */
  seat: null,
  frame: null,
  model: null,
};

/** The room shown now, and who reads it. */
export function enterRoom(code, token, seat) {
  Object.assign(page, { code, token: token || null, seat: token ? seat ?? null : null, frame: null, model: null });
}

/** Take the newest `state` frame; returns the model drawn from it. */
export function takeFrame(frame) {
  page.frame = withWholeLog(frame, page.frame);
  return remodel();
}

/** A connection sends each move once: a frame's `moves` and `log` hold those from `log_from` on, the ones
 * before are the previous frame's (a new connection starts at 0). */
function withWholeLog(frame, previous) {
  for (const part of ["view", "game"]) {
    const shown = frame[part];
    if (!shown || !shown.log_from) continue;
    const before = (previous && previous[part]) || {};
    for (const history of ["moves", "log"]) {
      if (shown[history]) shown[history] = (before[history] || []).slice(0, shown.log_from).concat(shown[history]);
    }
    shown.log_from = 0;
  }
  return frame;
}

/** The model of the newest frame again (after a change of language: the names of computers change). */
export function remodel() {
  page.model = page.frame ? buildModel(page.frame, page.token ? page.seat : null) : null;
  return page.model;
}

/** The parts of a `state` frame the page draws, with the names resolved (docs/web-protocol.md). */
export function buildModel(state, knownSeat = null) {
  const room = state.room || {};
  const view = state.view || null;
  const game = state.game || null;
  const seats = room.seats || [];
  const players = room.players || (game ? game.hand_counts.length : seats.length);
  const names = Array.from({ length: players }, (_, i) => seatName(seats[i], i));
  let me = view ? view.seat : state.seat ?? knownSeat;
  if (typeof me !== "number") me = null;
  const moves = (view || game || {}).moves || [];
  return {
    seq: state.seq,
    room,
    status: room.status || "waiting",
    players,
    seats,
    names,
    me,
    host: room.host ?? 0,
    hasGame: Boolean(game),
    rules: game ? game.rules : null,
    hand: view ? sortCards(view.hand || []) : null,
    /** The moves the reader may choose now: none while the table makes his only legal move (`making`). */
    legal: view && !view.making ? view.legal || [] : [],
    prompt: view ? view.prompt ?? null : null,
    madeFor: view ? view.made_for ?? null : null,
    /** The rule that matters to the reader now, for the coach (`elferraus.table.coach`), or null. */
    moment: view ? view.moment ?? null : null,
    rows: (game && game.rows) || {},
    slots: (game && game.slots) || {},
    counts: (game && game.hand_counts) || [],
    pile: game ? game.pile : null,
    turn: game ? game.turn : null,
    winner: game ? game.winner ?? null : null,
    words: (game && game.status) || null,
    turns: (game && game.turns) || [],
    log: (view ? view.log : game && game.log) || [],
    /** The seat of each move of the log (the reader's own lines are marked). */
    logSeats: moves.map((text) => Number(String(text).split(" ")[0])),
    lastLay: (game && game.last_lay) || null,
    result: (game && game.result) || null,
    gameId: game ? game.id ?? null : null,
  };
}

export function isOver(m) {
  return m.winner !== null || m.status === "round_over" || m.status === "match_over";
}
