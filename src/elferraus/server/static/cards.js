// Cards, rows and moves: the small pieces of the game the page needs to draw
// the table and to replay a record. The server decides what is legal; these
// functions only describe what is on the table.

export const SYMBOLS = { R: "●", Y: "▲", G: "■", B: "◆" };
export const ORDER = "RYGB";
export const ELEVEN = 11;

const PRESETS = {
  classic: {},
  ravensburger: { must_play: true },
  beginners: { colors: "RYG" },
};

/** The rules as an object, from a preset name or a record's rules object. */
export function rulesOf(rules) {
  const base = { colors: "RYGB", max_draws: 3, must_play: false, after_draw: "end" };
  if (typeof rules === "string") return { ...base, ...(PRESETS[rules] || {}), preset: rules };
  if (rules && typeof rules === "object") {
    const merged = { ...base, ...rules };
    if (typeof rules.preset === "string") return { ...merged, ...(PRESETS[rules.preset] || {}) };
    for (const [name, options] of Object.entries(PRESETS)) {
      const probe = { ...base, ...options };
      if (["colors", "max_draws", "must_play", "after_draw"].every((k) => probe[k] === merged[k])) {
        return { ...merged, preset: name };
      }
    }
    return merged;
  }
  return base;
}

/** "R12" -> {color: "R", number: 12}, or null. */
export function parseCard(text) {
  const m = /^([RYGB])(\d{1,2})$/.exec(String(text || "").toUpperCase());
  return m ? { color: m[1], number: Number(m[2]) } : null;
}

export function isCard(text) {
  return parseCard(text) !== null;
}

/** Sorted by colour (R Y G B), then number. */
export function sortCards(cards) {
  return [...cards].sort((a, b) => {
    const x = parseCard(a), y = parseCard(b);
    return ORDER.indexOf(x.color) - ORDER.indexOf(y.color) || x.number - y.number;
  });
}

/** Does `card` fit on `rows` ({R: [low, high]})? */
export function fits(card, rows) {
  const c = parseCard(card);
  if (!c) return false;
  const row = rows[c.color];
  if (!row) return c.number === ELEVEN;
  return c.number === row[0] - 1 || c.number === row[1] + 1;
}

/** The rows after laying `card` (a new object). */
export function layOnRows(rows, card) {
  const c = parseCard(card);
  const next = { ...rows };
  const row = next[c.color];
  if (!row) next[c.color] = [c.number, c.number];
  else next[c.color] = [Math.min(row[0], c.number), Math.max(row[1], c.number)];
  return next;
}

/** A record move: "2 R10" / "2 draw Y4" / "2 draw" / "2 pass" -> {seat, action, card}. */
export function parseMove(text) {
  const [seat, action, card] = String(text).trim().split(/\s+/);
  if (action === "draw") return { seat: Number(seat), action: "draw", card: card || null };
  if (action === "pass") return { seat: Number(seat), action: "pass", card: null };
  return { seat: Number(seat), action: "lay", card: action };
}

/** Each seat's most recent turn as a list of actions ("R12", "draw", "pass"). */
export function lastTurns(moves, players) {
  const turns = Array.from({ length: players }, () => []);
  let previous = -1;
  for (const text of moves) {
    const m = parseMove(text);
    if (m.seat < 0 || m.seat >= players) continue;
    if (m.seat !== previous) {
      turns[m.seat] = [];
      previous = m.seat;
    }
    turns[m.seat].push(m.action === "lay" ? m.card : m.action);
  }
  return turns;
}

/** True if `seat`'s only move so far is the opening 11. */
export function isOpening(moves, seat) {
  return moves.length > 0 && parseMove(moves[0]).seat === seat && moves.slice(1).every((t) => parseMove(t).seat !== seat);
}

/** The card laid most recently, or null. */
export function lastLay(moves) {
  for (let i = moves.length - 1; i >= 0; i--) {
    const m = parseMove(moves[i]);
    if (m.action === "lay") return m.card;
  }
  return null;
}

/** The card `seat` drew last in the current turn, from its own history. */
export function ownLastDraw(moves, seat) {
  for (let i = moves.length - 1; i >= 0; i--) {
    const m = parseMove(moves[i]);
    if (m.seat !== seat) return null;
    if (m.action === "draw" && m.card) return m.card;
  }
  return null;
}

/** The sum of the numbers on these cards (penalty points). */
export function points(cards) {
  return cards.reduce((sum, card) => sum + (parseCard(card)?.number || 0), 0);
}
