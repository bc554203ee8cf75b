// Motion on the table: a laid card slides from its owner to its place (about
// 200 ms), a card just drawn comes from the pile (turning face up for its
// owner; the others see a back go to his fan), a new round's hand is dealt
// from the pile, the rows scroll so that the card laid last is in view.
// Nothing moves under "reduced motion".

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

/** Who drew the card taken from the pile since `previous`, or null: {card} for the reader (his new card), {seat}
 * for another player (only a back is ever shown of it). Nothing under "reduced motion". */
export function prepareDraw(previous, model) {
  if (!previous || !previous.hasGame || !model.hasGame || reducedMotion()) return null;
  if (model.log.length !== previous.log.length + 1 || model.pile !== previous.pile - 1) return null;
  if (model.me !== null && previous.hand && model.hand && model.hand.length === previous.hand.length + 1) {
    const card = model.hand.find((c) => !previous.hand.includes(c));
    return card ? { card } : null;
  }
  const seat = model.counts.findIndex((n, i) => i !== model.me && n === (previous.counts[i] ?? -1) + 1);
  return seat >= 0 ? { seat } : null;
}

/** Whether `model` is a round just dealt (the table drawn for it now, fewer moves made than there are players,
 * at most the four 11s on the table): the reader's cards then come in from the pile. */
export function isDeal(previous, model) {
  if (!model.hasGame || model.me === null || !model.hand || !model.hand.length || reducedMotion()) return false;
  const fresh = !previous || !previous.hasGame || previous.status !== model.status || previous.room.round !== model.room.round;
  const laid = Object.values(model.rows).reduce((sum, row) => sum + (row ? row[1] - row[0] + 1 : 0), 0);
  return fresh && model.winner === null && model.log.length < model.players && laid <= 4;
}

function center(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/** Measure (once the page is laid out) where the cards come from and go; returns the function that moves
 * them (to be called after the caller's other reads), or null. `deal`: the reader's cards come in from the pile,
 * staggered, under 1 s in all; `draw`: the card just drawn comes from the pile (face up in the reader's hand, as a
 * back to another player's fan). Nothing waits for them: the page takes the next click at once. */
export function planPileMotion({ deal, draw }, { hand, seats, pile }) {
  const stack = pile.querySelector(".pile-stack") || pile;
  const from = center(stack.getBoundingClientRect());
  const moves = [];
  if (deal) {
    const cards = [...hand.querySelectorAll(".card")];
    const step = Math.min(40, 700 / Math.max(1, cards.length));
    cards.forEach((el, i) => {
      const to = center(el.getBoundingClientRect());
      moves.push(() => el.animate(
        [{ transform: `translate(${from.x - to.x}px,${from.y - to.y}px) scale(.5)`, opacity: 0 }],
        { duration: 240, delay: Math.round(i * step), easing: "ease-out", fill: "backwards" },
      ));
    });
  }
  if (draw && draw.card) {
    const el = hand.querySelector(`[data-card="${draw.card}"]`);
    if (el) {
      const to = center(el.getBoundingClientRect());
      // from the pile, edge on, turning face up as it comes (only the reader ever sees its face)
      moves.push(() => el.animate([{ transform: `translate(${from.x - to.x}px,${from.y - to.y}px) rotateY(90deg)` }],
        { duration: 320, easing: "ease-out" }));
    }
  } else if (draw && draw.seat !== undefined) {
    const seat = seats.querySelector(`[data-testid="seat-${draw.seat}"]`);
    const fan = seat && (seat.querySelector(".backs:not(:empty)") || seat);
    const box = stack.getBoundingClientRect();
    if (fan && box.width) {
      const to = center(fan.getBoundingClientRect());
      moves.push(() => {
        const ghost = h("span", { class: "back drawn-back", "aria-hidden": "true" });
        Object.assign(ghost.style, { left: `${box.left}px`, top: `${box.top}px`, width: `${box.width}px`, height: `${box.height}px` });
        document.body.append(ghost);
        const animation = ghost.animate(
          [{ transform: "translate(0,0)" }, { transform: `translate(${to.x - from.x}px,${to.y - from.y}px) scale(.5)` }],
          { duration: 320, easing: "ease-in-out" },
        );
        animation.onfinish = () => ghost.remove();
        animation.oncancel = () => ghost.remove();
      });
    }
  }
  if (!moves.length || typeof hand.animate !== "function") return null;
  return () => moves.forEach((move) => move());
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
