// Motion on the table: a laid card slides from its owner to its place (about
// 200 ms), a card just drawn flips face up for its owner, the rows scroll so
// that the card laid last is in view. Nothing moves under "reduced motion".

import { h, reducedMotion } from "./dom.js";
import { cardFace } from "./board.js";

/** Where the card laid since `previous` flies from, or null: {card, from: DOMRect}. */
export function prepareFlight(previous, model, { hand, seats }) {
  if (!previous || !previous.hasGame || reducedMotion()) return null;
  const fresh = model.log.length - previous.log.length;
  const lay = model.lastLay;
  if (fresh <= 0 || fresh > 3 || !lay || (previous.lastLay && previous.lastLay.card === lay.card)) return null;
  const el = lay.seat === previous.me
    ? hand.querySelector(`[data-card="${lay.card}"]`)
    : seats.querySelector(`[data-testid="seat-${lay.seat}"]`);
  return el ? { card: lay.card, from: el.getBoundingClientRect() } : null;
}

/** Slide a ghost of `card` from `from` to its cell on `board`. */
export function fly({ card, from }, board) {
  const cell = board.querySelector(`[data-cell="${card}"]`);
  if (!cell || typeof cell.animate !== "function") return;
  const to = cell.getBoundingClientRect();
  if (!to.width) return;
  const ghost = h("span", { class: `card flying c-${card[0]} fits`, "aria-hidden": "true" }, cardFace(card));
  const width = Math.min(from.width, 56);
  const height = Math.min(from.height, 72);
  const left = from.left + (from.width - width) / 2;
  const top = from.top + (from.height - height) / 2;
  Object.assign(ghost.style, { left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px` });
  document.body.append(ghost);
  cell.classList.add("arriving");
  const dx = to.left + to.width / 2 - (left + width / 2);
  const dy = to.top + to.height / 2 - (top + height / 2);
  const scale = Math.max(to.width / width, 0.3);
  const animation = ghost.animate(
    [{ transform: "translate(0,0) scale(1)" }, { transform: `translate(${dx}px,${dy}px) scale(${scale})` }],
    { duration: 200, easing: "ease-out" },
  );
  const done = () => {
    ghost.remove();
    cell.classList.remove("arriving");
  };
  animation.onfinish = done;
  animation.oncancel = done;
}

/** Flip the card the reader has just drawn (the one card more in his hand after one move). */
export function flipDrawn(previous, model, hand) {
  if (!previous || model.me === null || !previous.hand || !model.hand || reducedMotion()) return;
  if (model.log.length !== previous.log.length + 1 || model.hand.length !== previous.hand.length + 1) return;
  const card = model.hand.find((c) => !previous.hand.includes(c));
  const el = card && hand.querySelector(`[data-card="${card}"]`);
  if (el && typeof el.animate === "function") {
    el.animate([{ transform: "rotateY(90deg)" }, { transform: "rotateY(0deg)" }], { duration: 250, easing: "ease-out" });
  }
}

/** How to scroll the rows sideways so that the card laid last is in view: measured now, returned as a function
 * from a scrollLeft to the one that shows the card (null: nothing to do), for the caller to apply after its
 * other reads. */
export function revealLast(wrap) {
  const cell = wrap.querySelector(".cell.last");
  if (!cell || wrap.scrollWidth <= wrap.clientWidth) return null;
  const label = wrap.querySelector(".row-label");
  const inset = label ? label.offsetWidth : 0;
  const box = wrap.getBoundingClientRect();
  const rect = cell.getBoundingClientRect();
  const view = wrap.clientWidth;
  const start = rect.left - box.left + wrap.scrollLeft; // where the card is in the row, whatever the scroll
  return (scroll) => {
    const left = start - scroll;
    if (left < inset + 4) return scroll + left - inset - rect.width;
    if (left + rect.width > view - 4) return scroll + left + rect.width - view + rect.width;
    return scroll;
  };
}
