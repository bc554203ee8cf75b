// The pieces of the board, as the page draws them: cards (colour, letter and
// symbol, number; the symbols as inline SVG), the rows 1 -> 20 and the hand
// in at most two lines. What lies where and what fits comes from the server;
// this only draws it. How they look is app.css's ("cards" and "the rows").

import { h } from "./dom.js";
import { t, colorName } from "./i18n.js";

export const SYMBOLS = { R: "●", Y: "▲", G: "■", B: "◆" };
const ORDER = "RYGB";
const ELEVEN = 11;
const NUMBERS = 20;

/** "R12" -> {color: "R", number: 12}, or null. */
export function parseCard(text) {
  const m = /^([RYGB])(\d{1,2})$/.exec(String(text || "").toUpperCase());
  return m ? { color: m[1], number: Number(m[2]) } : null;
}

export function isCard(text) {
  return parseCard(text) !== null;
}

/** Sorted for display: by colour (R Y G B), then number. */
export function sortCards(cards) {
  return [...cards].sort((a, b) => {
    const x = parseCard(a), y = parseCard(b);
    return ORDER.indexOf(x.color) - ORDER.indexOf(y.color) || x.number - y.number;
  });
}

/** "red 12" (", fits" when it does), for a screen reader. */
export function cardLabel(card, fitsNow = false) {
  const c = parseCard(card);
  if (!c) return card;
  return t(fitsNow ? "web_card_fits" : "web_card", { color: colorName(c.color), number: c.number });
}

/** A card button's name: what it shows first ("R4", as a voice control user reads it off the card), then
 * what it is ("red 4", ", fits" when it does). */
export function cardButtonLabel(card, fitsNow = false) {
  const c = parseCard(card);
  return c ? `${c.color}${c.number}, ${cardLabel(card, fitsNow)}` : card;
}

const SVG = "http://www.w3.org/2000/svg";
// Each colour's symbol drawn on a 10 x 10 grid, the same on every system (a font may lack one, or draw it as an emoji).
const SHAPES = {
  R: ["circle", { cx: 5, cy: 5, r: 4.3 }],
  Y: ["path", { d: "M5 .6 9.6 9.2H.4Z" }],
  G: ["rect", { x: 1, y: 1, width: 8, height: 8 }],
  B: ["path", { d: "M5 .2 9.8 5 5 9.8.2 5Z" }],
};

/** The symbol of colour `letter` (● ▲ ■ ◆) as a small inline SVG in the current text colour. */
export function pip(letter, extra = "") {
  const [tag, attrs] = SHAPES[letter];
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", `pip ${extra}`.trim());
  svg.setAttribute("viewBox", "0 0 10 10");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const shape = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) shape.setAttribute(key, String(value));
  svg.append(shape);
  return svg;
}

/** A card's face: its letter and symbol in the corner, its number, and the symbol under it. */
export function cardFace(card) {
  const c = parseCard(card);
  return [
    h("span", { class: "corner", "aria-hidden": "true" }, c.color, pip(c.color)),
    h("span", { class: "num", "aria-hidden": "true" }, String(c.number)),
    pip(c.color, "big"),
  ];
}

/** A small card for lists (the result, the replay). */
export function miniCard(card, extra = "") {
  const c = parseCard(card);
  return h("span", { class: `mini c-${c.color} ${extra}`, role: "img", "aria-label": cardLabel(card) },
    pip(c.color), h("span", { "aria-hidden": "true" }, `${c.color}${c.number}`));
}

/** Small cards, sorted; those in the set `fitting` marked. */
export function miniCards(cards, fitting = null) {
  const list = sortCards(cards);
  if (!list.length) return h("span", { class: "muted" }, "–");
  return h("span", { class: "minis" }, list.map((card) => miniCard(card, fitting && fitting.has(card) ? "fits" : "")));
}

function rowLabel(letter, row, slots) {
  const color = colorName(letter);
  const next = slots.map((n) => `${letter}${n}`);
  if (!row) return t("web_row_closed", { color, card: next.join(` ${t("or")} `) });
  return t("web_row_open", {
    color, low: row[0], high: row[1], next: next.length ? next.join(` ${t("or")} `) : t("nothing_more"),
  });
}

/**
 * The rows 1 -> 20, every 11 in one column. `rows`: {R: [low, high]} of the
 * open rows; `slots`: {R: [7, 14]}, where a card fits next (marked +7);
 * `last`: the card laid last (framed). Each laid card is a small card (its
 * number and symbol), each slot the outline of the card that fits there.
 */
export function renderBoard(rows, slots, colors, last) {
  const board = h("div", { class: "board", "data-testid": "board" });
  for (const letter of colors) {
    const row = rows[letter] || null;
    const free = (slots && slots[letter]) || [];
    const el = h("div", {
      class: `row c-${letter}${row ? "" : " closed"}`, "data-testid": `row-${letter}`, role: "img",
      "aria-label": rowLabel(letter, row, free), "data-low": row ? row[0] : null, "data-high": row ? row[1] : null,
    }, h("span", { class: "row-label", "aria-hidden": "true" }, h("span", { class: "letter" }, letter), pip(letter)));
    for (let n = 1; n <= NUMBERS; n++) {
      const id = `${letter}${n}`;
      const eleven = n === ELEVEN ? " eleven" : "";
      const cell = (kind, children, extra = {}) => el.append(h("span", { class: `cell ${kind}${eleven}`, "aria-hidden": "true", ...extra }, children));
      if (!row && n > ELEVEN) {
        if (n === ELEVEN + 1) el.append(h("span", { class: "cell not-open", "aria-hidden": "true" }, t("not_open")));
        continue;
      }
      if (row && n >= row[0] && n <= row[1]) {
        cell(`laid${last === id ? " last" : ""}`, [h("span", { class: "n" }, String(n)), pip(letter)], { "data-cell": id });
      } else if (free.includes(n)) {
        cell("slot", [h("span", { class: "plus" }, "+"), h("span", { class: "n" }, String(n))], { "data-cell": id });
      } else cell("empty", "");
    }
    board.append(el);
  }
  return board;
}

const CARD_MIN = 30;
const CARD_COMFORT = 44;
const CARD_GAP = 2;
const GROUP_GAP = 6;

/** The width a line of cards needs at `per` pixels a card. */
export function lineWidth(line, per = CARD_MIN) {
  let groups = 0;
  for (let i = 1; i < line.length; i++) if (line[i][0] !== line[i - 1][0]) groups += 1;
  return line.length * per + (line.length - 1) * CARD_GAP + groups * GROUP_GAP;
}

/** Split a sorted hand into at most two lines that fit `width`, evenly, at a colour boundary if that is nearly as even. */
export function handLines(cards, width) {
  if (cards.length < 2 || lineWidth(cards, CARD_COMFORT) <= width) return [cards];
  let best = null;
  for (let k = 1; k < cards.length; k++) {
    const a = cards.slice(0, k);
    const b = cards.slice(k);
    const over = Math.max(0, lineWidth(a, CARD_MIN) - width) + Math.max(0, lineWidth(b, CARD_MIN) - width);
    const inside = cards[k - 1][0] === cards[k][0];
    const cost = over * 10 + Math.max(a.length, b.length) + (inside ? 1.5 : 0);
    if (best === null || cost < best.cost) best = { cost, k };
  }
  return [cards.slice(0, best.k), cards.slice(best.k)];
}

/** The card width (px) that keeps the longest of `lines` within `width`. */
export function cardWidth(lines, width) {
  const longest = lines.reduce((a, b) => (lineWidth(b) > lineWidth(a) ? b : a), []);
  const over = lineWidth(longest) - width;
  return over > 0 ? Math.max(22, CARD_MIN - Math.ceil(over / longest.length)) : CARD_MIN;
}

/** Scroll a board sideways so that the 11s are in the middle (when it does not fit). `plan`: only return the
 * scrollLeft that does it (null: none), for the caller to set after its other reads. */
export function centerEleven(wrap, plan = false) {
  if (!wrap || wrap.scrollWidth <= wrap.clientWidth) return null;
  const cell = wrap.querySelector(".cell.eleven");
  if (!cell) return null;
  const left = Math.max(0, cell.offsetLeft + cell.offsetWidth / 2 - wrap.clientWidth / 2);
  if (!plan) wrap.scrollLeft = left;
  return left;
}
