// The table screen: the other players, the rows, the status line, the hand
// and its buttons, the move log; the result of a round below. Everything is
// drawn from one model (state.js) of the newest `state` frame; every word of
// the game in it is a message the server sent (docs/web-protocol.md).

import { h, fill, keyboardScrollable, scrollsNow, afterLayout, viewportWidth, copyButton } from "./dom.js";
import { t, has, say, levelWord } from "./i18n.js";
import { isOver } from "./state.js";
import { isCard, cardFace, cardButtonLabel, renderBoard, handLines, cardWidth, centerEleven } from "./board.js";
import { prepareFlight, fly, prepareDraw, isDeal, planPileMotion, revealLast } from "./motion.js";
import { soundSwitch, labelSoundSwitch, playFor } from "./sound.js";
import { Announcer } from "./announce.js";
import { Reactions } from "./reactions.js";
import { Coach } from "./coach.js";

// The end of a round's module: fetched once the table is drawn (not with the page), so that when the
// round ends the result is drawn, and takes the focus, in the same update as the last move.
let resultModule = null;
function loadResult() {
  return import("./result.js").then((module) => (resultModule = module));
}

/** What must be fetched before `model` is first drawn: a round already over needs the result's module, so
 * that the table is drawn once, whole (drawn before it, the result would push everything below it down the
 * page as it came). Null when nothing is. */
export function neededFirst(model) {
  return isOver(model) && !resultModule ? loadResult() : null;
}

/** The status line: on the reader's turn what he may do now, else whose turn it is or who won. */
export function statusText(m) {
  return m.hasGame ? say(m.prompt || m.words, m.names, m.me) : "";
}

/** Online, away, or a computer playing for an absent person; words, not only a colour. */
export function presence(seat) {
  if (!seat || seat.kind === "computer") return null;
  if (seat.kind === "open") return h("span", { class: "presence open" }, t("web_seat_free"));
  if (seat.auto) return h("span", { class: "presence auto" }, `◐ ${t("web_auto")}`);
  return seat.online
    ? h("span", { class: "presence online" }, `● ${t("web_online")}`)
    : h("span", { class: "presence offline" }, `○ ${t("web_offline")}`);
}

function renderSeat(m, index) {
  const seat = m.seats[index] || { kind: "person" };
  const last = say(m.turns[index], m.names, m.me);
  const toMove = m.hasGame && !isOver(m) && m.turn === index;
  const count = m.counts[index] ?? 0;
  const out = count === 0 && m.winner === index;
  return h("li", {
    class: `seat${toMove ? " to-move" : ""}${m.winner === index ? " winner" : ""}`, "data-testid": `seat-${index}`,
    "aria-current": toMove ? "true" : null,
  },
  h("span", { class: "seat-name" },
    h("span", { class: "who" }, toMove ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶ ") : null, h("b", {}, m.names[index])),
    seat.kind === "computer" && seat.level ? h("span", { class: "level" }, ` (${levelWord(seat.level)})`) : null,
    toMove ? h("span", { class: "sr-only" }, `, ${t("web_to_move")}`) : null),
  h("span", { class: "seat-hand" }, backs(count, index),
    h("span", { class: "seat-count", "data-testid": `count-${index}` },
      // the winner's empty hand said in words, not a bare 0 (a phone shows the count without the word "cards")
      out ? h("b", {}, t("result_went_out")) : [h("b", {}, String(count)),
        h("span", { class: "count-word" }, ` ${count === 1 ? t("card") : t("cards")}`)])),
  presence(seat),
  last ? h("span", { class: "seat-last", "data-testid": `last-${index}` }, last) : null);
}

/** The most card backs drawn in a seat's fan (its count is written beside them). */
export const MAX_BACKS = 12;

/** A seat's hand as a fan of card backs, one a card up to MAX_BACKS: decoration (the count is the words). */
function backs(count, index) {
  const shown = Math.min(count, MAX_BACKS);
  const fan = h("span", { class: "backs", "aria-hidden": "true", "data-testid": `backs-${index}` });
  for (let i = 0; i < shown; i++) {
    const back = h("span", { class: "back" });
    back.style.setProperty("--i", String(i - (shown - 1) / 2)); // its place in the fan, from the middle
    fan.append(back);
  }
  return fan;
}

/** The pile on the table: a stack of backs, one for every 8 cards or part of it (at most 5), an outline when it
 * is empty. Decoration: the count is written beside it. */
function pileStack(count) {
  const stack = h("span", { class: "pile-stack", "aria-hidden": "true", "data-testid": "pile-stack" });
  for (let i = 0; i < Math.min(5, Math.ceil(count / 8)); i++) stack.append(h("span", { class: "back" }));
  return stack;
}

const TABLE_READY = "elferraus:table-ready";

export class TableScreen {
  /** `actions`: {lay(card), draw(), pass(), next(), rematch(), react(id)}. */
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.announcer = new Announcer();
    this.reactions = new Reactions((id) => actions.react(id), (text) => this.announcer.say(text));
    this.coach = new Coach((frame) => actions.send(frame), () => this.markSuggested());
    this.model = null;
    this.cursor = null;
    this.pending = false;
    this.error = "";
    this.logged = 0;
    this.build();
    // What depends on the laid-out page (scroll positions, the hand's width) is read after the browser's own
    // layout (afterLayout), never between the writes of an update: no forced layout.
    this.handWidth = 0; // the hand's width as last laid out (0: not yet; renderHand() then estimates it)
    this.laidShape = ""; // how the hand was drawn: its lines and card width (handShape)
    this.layoutWork = null;
    this.focusTo = null; // where the focus goes once the page is laid out ("hand"), or null
    if (typeof ResizeObserver === "function") {
      new ResizeObserver((entries) => {
        const width = entries[entries.length - 1].contentRect.width;
        if (!width || Math.abs(width - this.handWidth) < 1) return;
        this.handWidth = width;
        if (this.model && this.model.hand && this.handShape(this.model.hand, width) !== this.laidShape) {
          this.renderHand();
          this.afterLayout({});
        }
      }).observe(this.els.hand);
    }
  }

  build() {
    this.els = {
      heading: h("h1", { class: "sr-only" }),
      seats: h("ul", { class: "seats", "data-testid": "opponents" }),
      boardTitle: h("h2", { id: "board-head" }),
      pile: h("span", { class: "pile", "data-testid": "pile" }),
      sound: soundSwitch(),
      boardWrap: h("div", { class: "board-wrap", role: "group", "aria-labelledby": "board-head" }),
      status: h("p", { class: "status", "data-testid": "status" }),
      madeFor: h("p", { class: "made-for", "data-testid": "made-for", hidden: true }),
      error: h("p", { class: "error", "data-testid": "error", role: "alert" }),
      lastMove: h("p", { class: "last-move", "data-testid": "last-move" }),
      handHead: h("h2", { class: "hand-head", id: "hand-head" }),
      hand: h("div", { class: "hand", "data-testid": "hand", role: "toolbar", "aria-labelledby": "hand-head" }),
      draw: h("button", { class: "action", "data-testid": "draw", "aria-keyshortcuts": "D", onclick: () => this.act("draw") }),
      end: h("button", { class: "action", "data-testid": "end-turn", "aria-keyshortcuts": "E", onclick: () => this.act("pass") }),
      result: h("section", { class: "result", "data-testid": "result", hidden: true, "aria-labelledby": "result-head", tabindex: "-1" }),
      logHead: h("h2", { id: "log-head" }),
      log: h("ol", { class: "log", "data-testid": "log", "aria-labelledby": "log-head" }),
      keys: h("p", { class: "keys muted" }),
      celebration: h("div", { class: "celebration", "aria-hidden": "true", "data-testid": "celebration", hidden: true }),
      watchHint: h("p", { class: "watch-hint", "data-testid": "watch-hint", hidden: true }),
      otherDevice: h("details", { class: "other-device", "data-testid": "other-device", ontoggle: () => this.renderOtherDevice() },
        h("summary", { "data-testid": "other-device-open" })),
    };
    const e = this.els;
    this.handArea = h("section", { class: "hand-area" }, e.handHead, e.watchHint, e.hand);
    this.actionsBar = h("div", { class: "actions" }, e.draw, e.end);
    fill(this.root,
      h("div", { class: "play" },
        e.heading, e.seats,
        h("section", { class: "table-area", "aria-labelledby": "board-head" },
          h("div", { class: "board-head" }, e.boardTitle, e.pile, e.sound), e.boardWrap),
        h("div", { class: "status-area" }, e.status, e.madeFor, e.error, e.lastMove),
        e.result, this.handArea, this.coach.element, this.actionsBar, this.reactions.el, e.otherDevice, this.coach.switchOn, e.keys),
      h("aside", { class: "log-area" }, e.logHead, e.log),
      this.announcer.el, e.celebration);
    this.root.classList.add("table-screen");
  }

  act(move) {
    if (this.pending) return;
    if (move === "draw") this.actions.draw();
    else if (move === "pass") this.actions.pass();
    else this.actions.lay(move);
  }

  setPending(flag) {
    this.pending = flag;
    this.root.classList.toggle("pending", flag);
    if (this.model) this.renderButtons();
  }

  setError(text) {
    this.error = text || "";
    this.els.error.textContent = this.error;
  }

  /** Draw this model; animate what changed since the last one. */
  update(model) {
    const previous = this.model;
    this.model = model;
    const flight = prepareFlight(previous, model, this.els);
    const draw = prepareDraw(previous, model);
    const deal = isDeal(previous, model);
    // where the focus is (or is to go, when the last update's move of it is still to come)
    const focused = this.focusTo || (document.activeElement && this.root.contains(document.activeElement)
      ? document.activeElement.getAttribute("data-testid") : null);
    // the end of a round takes the focus of somebody at the table to the result (its buttons come next)
    if (isOver(model) && previous && previous.hasGame && !isOver(previous) && (focused || document.activeElement === document.body)) {
      this.focusResult = true;
    }
    const toResult = this.focusResult;
    this.celebrate(isOver(model) && previous && previous.hasGame && !isOver(previous), model);
    const firstTable = model.hasGame && !(previous && previous.hasGame);
    const lost = !document.activeElement || document.activeElement === document.body || document.activeElement === this.root
      || !document.activeElement.isConnected;
    this.render();
    const resultFocused = toResult && !this.focusResult; // drawn now, and it took the focus
    // The focus goes back where it was (the drawing replaced its element) at once: a keyboard's or a screen
    // reader's user never finds it on the page. When the table is just drawn (by "Play now", or after "Start the
    // game" took its button away), it goes into the hand once the page is laid out (focusing before would
    // force the layout, in the first state's long task).
    this.focusTo = null;
    if (!resultFocused) this.restoreFocus(focused);
    if (firstTable && lost && model.me !== null && !isOver(model)) this.focusTo = "hand";
    this.afterLayout({
      center: firstTable,
      reveal: !previous || !previous.hasGame || model.log.length !== previous.log.length,
      flight,
      pileMotion: draw || deal ? { draw, deal } : null,
    });
    this.announcer.follow(previous, model);
    playFor(previous, model);
    // the table is drawn and takes clicks from here on (benchmarks/site/web_time_to_table.py reads this)
    if (model.hasGame && !(previous && previous.hasGame)) {
      performance.mark(TABLE_READY);
      if (!resultModule) loadResult().catch(() => {}); // fetched again when the round ends if this failed
    }
  }

  render() {
    const m = this.model;
    const e = this.els;
    const over = isOver(m);
    this.root.classList.toggle("spectator", m.me === null);
    this.root.classList.toggle("over", over);
    // the other players in turn order (drawn right to left: the next one sits on the reader's right)
    const order = [];
    const first = m.me === null ? 0 : m.me + 1;
    for (let i = 0; i < m.players; i++) {
      const seat = (first + i) % m.players;
      if (seat !== m.me) order.push(seat);
    }
    e.heading.textContent = t("app_title");
    fill(e.seats, order.map((seat) => renderSeat(m, seat)));
    e.seats.setAttribute("aria-label", t("web_players"));
    // the table
    const parts = [`${t("pile")}: ${m.pile ?? 0}`];
    if (m.rules.key && has(m.rules.key)) parts.push(t(m.rules.key).split(":")[0]);
    e.boardTitle.textContent = t("web_table");
    fill(e.pile, pileStack(m.pile ?? 0), h("span", { class: "pile-words" }, parts.join(" · ")));
    e.pile.dataset.count = String(m.pile ?? 0);
    labelSoundSwitch(e.sound, t("web_sound"));
    fill(e.boardWrap, renderBoard(m.rows, m.slots, m.rules.colors, m.lastLay && m.lastLay.card));
    // the status, and what was done for the reader
    e.status.textContent = statusText(m);
    e.status.classList.toggle("mine", m.me !== null && m.turn === m.me && m.legal.length > 0);
    // what the table did for the reader belongs to his turn: once another player is to move, it is old news
    const note = m.madeFor && m.turn === m.me && !over ? say(m.madeFor, m.names, m.me) : "";
    e.madeFor.textContent = note;
    e.madeFor.hidden = !note;
    e.error.textContent = this.error;
    const latest = m.log.length ? say(m.log[m.log.length - 1], m.names, m.me) : "";
    if (e.lastMove.textContent !== latest) e.lastMove.textContent = latest;
    e.keys.textContent = m.me !== null ? t("web_keys") : "";
    e.keys.hidden = m.me === null;
    e.otherDevice.hidden = m.me === null || !(this.actions.ownLink && this.actions.ownLink());
    e.otherDevice.firstChild.textContent = t("web_other_device");
    if (e.otherDevice.open) this.renderOtherDevice();
    this.renderResult(over);
    this.renderHand();
    this.renderButtons();
    this.renderLog();
    this.reactions.place(m, this.root);
    this.coach.update(m);
  }

  /** A short celebration when a round has just ended: confetti in the four colours falling for a few seconds
   * (CSS alone; none under reduced motion), gone when the next round starts. Decoration: the result says who won. */
  celebrate(now, model) {
    const el = this.els.celebration;
    if (!isOver(model)) {
      el.hidden = true;
      el.replaceChildren();
      return;
    }
    if (!now) return;
    el.replaceChildren();
    for (let i = 0; i < 24; i++) {
      const piece = h("span", { class: `c-${"RYGB"[i % 4]}` });
      piece.style.setProperty("--x", `${(i * 37) % 100}vw`);
      piece.style.setProperty("--d", `${(i * 7) % 10 / 10}s`);
      el.append(piece);
    }
    el.hidden = false;
  }

  /** Mark the card the coach's hint suggests (none when it suggests drawing or ending the turn). */
  markSuggested() {
    const card = this.coach.suggested();
    for (const el of this.els.hand.querySelectorAll(".card")) el.classList.toggle("suggested", el.dataset.card === card);
  }

  /** The result of a finished round (its module is loaded when a round first ends). */
  renderResult(over) {
    const e = this.els;
    if (!over || !(this.model.result || this.model.winner !== null)) {
      e.result.hidden = true;
      e.result.replaceChildren();
      return;
    }
    const show = ({ renderResult }) => {
      if (!isOver(this.model)) return;
      e.result.hidden = false;
      fill(e.result, renderResult(this.model, this.actions));
      if (this.focusResult) e.result.focus();
      this.focusResult = false;
    };
    if (resultModule) show(resultModule);
    else loadResult().then(show);
  }

  legalCards() {
    const m = this.model;
    return new Set(m.me !== null && m.turn === m.me && !isOver(m) ? m.legal.filter(isCard) : []);
  }

  renderHand() {
    const m = this.model;
    const e = this.els;
    e.watchHint.hidden = m.me !== null;
    if (m.me === null) {
      fill(e.handHead, t("web_watching"));
      // a player on a new device with the plain invite: how to take his own seat (his link; nobody else's)
      e.watchHint.textContent = t("web_watching_hint");
      e.hand.replaceChildren();
      this.handArea.classList.add("watching");
      return;
    }
    this.handArea.classList.remove("watching");
    const hand = m.hand || [];
    const count = hand.length;
    fill(e.handHead, `${t("your_hand")} · ${count} ${count === 1 ? t("card") : t("cards")}`);
    const legal = this.legalCards();
    const myTurn = m.turn === m.me && !isOver(m);
    // The hand is one Tab stop (its cursor); on the reader's turn it rests on a card that fits, when one does:
    // whenever the turn comes to him or his hand changes, and when the card it was on has gone.
    const key = hand.join(" ");
    const turnStarted = myTurn && !this.wasMyTurn;
    if (!hand.includes(this.cursor) || ((turnStarted || key !== this.handKey) && legal.size && !legal.has(this.cursor))) {
      this.cursor = aim(hand, legal, this.handCards ? this.handCards.indexOf(this.cursor) : -1);
    }
    this.handKey = key;
    this.handCards = hand;
    this.wasMyTurn = myTurn;
    const width = this.handWidth || estimateHandWidth();
    this.laidShape = this.handShape(hand, width);
    const lines = handLines(hand, width);
    fill(e.hand, lines.map((line) => h("div", { class: "hand-line" }, line.map((card, i) => {
      const fitsNow = legal.has(card);
      const groupStart = i > 0 && line[i - 1][0] !== card[0];
      return h("button", {
        class: `card c-${card[0]}${fitsNow ? " fits" : myTurn ? " dim" : ""}${groupStart ? " group-start" : ""}`,
        "data-testid": `card-${card}`, "data-card": card, "aria-label": cardButtonLabel(card, fitsNow),
        tabindex: card === this.cursor ? "0" : "-1",
        onclick: () => { this.cursor = card; this.act(card); },
        onfocus: () => { this.cursor = card; this.markTarget(card); },
        onblur: () => this.markTarget(null),
        onmouseenter: () => this.markTarget(card),
        onmouseleave: () => this.markTarget(null),
      }, cardFace(card));
    }))));
    e.hand.classList.toggle("two-lines", lines.length > 1);
    // a very long hand (a 2-player game after drawing) gets narrower cards rather than a third line
    const narrow = cardWidth(lines, width);
    e.hand.style.setProperty("--card-min", `${narrow}px`);
    e.hand.classList.toggle("narrow", narrow < 28);
  }

  /** "Play on another device": the reader's own link (with his seat's token), drawn when opened. */
  renderOtherDevice() {
    const details = this.els.otherDevice;
    const summary = details.firstChild;
    const own = this.actions.ownLink && this.actions.ownLink();
    if (!details.open || !own) {
      details.replaceChildren(summary);
      return;
    }
    const link = `${location.origin}${own}`;
    const shown = details.querySelector("input");
    if (shown && shown.value === link && details.dataset.lang === document.documentElement.lang) return;
    details.dataset.lang = document.documentElement.lang;
    details.replaceChildren(summary,
      h("p", { class: "muted" }, t("web_own_link_hint")),
      h("div", { class: "copy-line" },
        h("input", { readonly: true, value: link, "data-testid": "own-link", "aria-label": t("web_own_link"), onfocus: (ev) => ev.target.select() }),
        copyButton(link, "copy-own")));
  }

  /** The hand's lines and card width at `width` px, as one string: the hand is drawn again only when it changes. */
  handShape(hand, width) {
    const lines = handLines(hand, width);
    return `${lines.map((line) => line.length).join(",")}/${cardWidth(lines, width)}`;
  }

  /** Show where a fitting card would go. */
  markTarget(card) {
    for (const el of this.root.querySelectorAll(".cell.target")) el.classList.remove("target");
    if (!card || !this.legalCards().has(card)) return;
    const cell = this.els.boardWrap.querySelector(`[data-cell="${card}"]`);
    if (cell) cell.classList.add("target");
  }

  renderButtons() {
    const m = this.model;
    const e = this.els;
    const mine = m.me !== null && m.turn === m.me && !isOver(m);
    e.draw.textContent = t("button_draw");
    e.end.textContent = t("button_end");
    const focused = document.activeElement;
    e.draw.disabled = this.pending || !mine || !m.legal.includes("draw");
    e.end.disabled = this.pending || !mine || !m.legal.includes("pass");
    // The filled button is the move to make, not whichever is usable: while a card fits, the cards are (no
    // button is filled); Draw when nothing fits and one may draw; End turn when the turn can only end.
    const fits = mine && m.legal.some(isCard);
    e.draw.classList.toggle("primary", mine && !fits && m.legal.includes("draw"));
    e.end.classList.toggle("primary", mine && !fits && !m.legal.includes("draw") && m.legal.includes("pass"));
    this.actionsBar.hidden = m.me === null || isOver(m);
    if ((focused === e.draw || focused === e.end) && (focused.disabled || this.actionsBar.hidden)) this.focusHand();
    e.hand.setAttribute("aria-busy", this.pending ? "true" : "false");
  }

  renderLog() {
    const m = this.model;
    const e = this.els;
    e.logHead.textContent = t("web_log");
    // a new round or a resync with fewer moves: start over
    if (m.log.length < this.logged || this.logNames !== m.names.join("\u0000") || this.logLang !== document.documentElement.lang) {
      e.log.replaceChildren();
      this.logged = 0;
    }
    this.logNames = m.names.join("\u0000");
    this.logLang = document.documentElement.lang;
    for (let i = this.logged; i < m.log.length; i++) {
      e.log.append(h("li", { class: m.logSeats[i] === m.me ? "own" : "" }, say(m.log[i], m.names, m.me)));
    }
    this.logged = m.log.length;
  }

  /** Once the browser has laid out what update() wrote (in the same frame, before it paints): scroll the
   * rows (the 11s to the middle at first, the card laid last into view), the player to move into view, the
   * log to its end; let a laid card fly; make what scrolls a Tab stop. All reads first, then the writes.
   * `work`: {center, reveal, flight} of this update, added to any not done yet. */
  afterLayout(work) {
    const pending = this.layoutWork;
    this.layoutWork = {
      center: Boolean(work.center || (pending && pending.center)),
      reveal: Boolean(work.reveal || (pending && pending.reveal)),
      flight: work.flight || (pending && pending.flight) || null,
      pileMotion: work.pileMotion || (pending && pending.pileMotion) || null,
    };
    if (pending) return; // already asked for
    const run = () => {
      const todo = this.layoutWork;
      this.layoutWork = null;
      if (!todo || !this.model) return;
      const e = this.els;
      const moving = e.seats.querySelector(".to-move");
      let seatShift = 0;
      if (moving && e.seats.scrollWidth > e.seats.clientWidth) {
        const strip = e.seats.getBoundingClientRect();
        const chip = moving.getBoundingClientRect();
        if (chip.left < strip.left) seatShift = -(strip.left - chip.left + 8);
        else if (chip.right > strip.right) seatShift = chip.right - strip.right + 8;
      }
      const board = todo.center ? centerEleven(e.boardWrap, true) : null;
      const reveal = todo.reveal ? revealLast(e.boardWrap) : null;
      const logEnd = e.log.scrollHeight;
      const area = e.log.parentElement;
      const areaEnd = area ? area.scrollHeight : 0;
      const scrolls = [e.boardWrap, e.log].map((el) => scrollsNow(el));
      const fromPile = todo.pileMotion ? planPileMotion(todo.pileMotion, e) : null;
      const active = document.activeElement;
      if (this.focusTo && (!active || active === document.body || active === this.root)) this.restoreFocus(this.focusTo);
      this.focusTo = null;
      // the writes
      if (seatShift) e.seats.scrollLeft += seatShift;
      let scroll = board !== null ? board : e.boardWrap.scrollLeft;
      if (reveal !== null) scroll = reveal(scroll);
      if (scroll !== e.boardWrap.scrollLeft) e.boardWrap.scrollLeft = scroll;
      e.log.scrollTop = logEnd;
      if (area) area.scrollTop = areaEnd;
      [e.boardWrap, e.log].forEach((el, i) => keyboardScrollable(el, scrolls[i]));
      if (todo.flight) fly(todo.flight, e.boardWrap);
      if (fromPile) fromPile();
    };
    afterLayout(this.els.boardWrap, run);
  }

  /** Relabel everything after a change of language. */
  relabel(model) {
    this.model = model;
    this.logged = 0;
    this.els.log.replaceChildren();
    this.reactions.relabel();
    this.render();
  }

  restoreFocus(testid) {
    if (!testid) return;
    // a card had the focus: it goes to the hand's cursor (the same card, or where renderHand() moved it)
    if (testid === "hand" || testid.startsWith("card-")) {
      this.focusHand();
      return;
    }
    const el = this.root.querySelector(`[data-testid="${testid}"]`);
    if (el && !el.disabled && !el.closest("[hidden]")) el.focus({ preventScroll: true });
    else if (el) this.focusHand();
  }

  /** A button disabled or hidden under the focus would drop it to the page: keep it in the hand instead. */
  focusHand() {
    const card = this.els.hand.querySelector('.card[tabindex="0"]');
    if (card) card.focus({ preventScroll: true });
  }

  /** Keys: arrows move through the hand, Enter lays, d draws, e ends the turn (z and b too, as in German). */
  onKey(event) {
    const m = this.model;
    if (!m || m.me === null) return;
    const key = event.key;
    const lower = key.length === 1 ? key.toLowerCase() : "";
    if (lower === "d" || lower === "z" || lower === "e" || lower === "b") {
      const button = lower === "d" || lower === "z" ? this.els.draw : this.els.end;
      if (!button.disabled) {
        event.preventDefault();
        this.act(button === this.els.draw ? "draw" : "pass");
      }
      return;
    }
    if (document.activeElement === this.els.boardWrap || document.activeElement === this.els.log) return; // they scroll
    const cards = [...this.els.hand.querySelectorAll(".card")];
    if (!cards.length) return;
    const inHand = this.els.hand.contains(document.activeElement);
    let index = cards.findIndex((c) => c.dataset.card === this.cursor);
    if (index < 0) index = 0;
    const n = cards.length;
    const legal = this.legalCards();
    let next = null;
    if (key === "ArrowRight") next = inHand ? (index + 1) % n : index;
    else if (key === "ArrowLeft") next = inHand ? (index - 1 + n) % n : index;
    else if (key === "Home" && inHand) next = 0;
    else if (key === "End" && inHand) next = n - 1;
    else if (key === "ArrowDown" || key === "ArrowUp") {
      const step = key === "ArrowDown" ? 1 : -1;
      for (let k = 1; k <= n; k++) {
        const j = (index + step * k + n * k) % n;
        if (legal.has(cards[j].dataset.card)) {
          next = j;
          break;
        }
      }
      if (next === null && !inHand) next = index;
    } else if (key === "Enter" && !inHand && !onControl(document.activeElement) && legal.has(this.cursor)) {
      event.preventDefault();
      this.act(this.cursor);
      return;
    }
    if (next === null) return;
    event.preventDefault();
    for (const card of cards) card.tabIndex = -1;
    cards[next].tabIndex = 0;
    this.cursor = cards[next].dataset.card;
    cards[next].focus();
  }
}

/** The hand's width before the page was first laid out (from the viewport's, found without forcing a layout;
 * the hand's own, once laid out, corrects it): main's padding, and on a laptop the log beside the table. */
function estimateHandWidth() {
  const rem = 16;
  const width = Math.min(viewportWidth(), 1240);
  let inner;
  if (width >= 900) inner = width - 2 * rem - 17 * rem - 0.6 * rem;
  else if (width <= 420) inner = width - 0.8 * rem;
  else inner = width - 1.2 * rem;
  return Math.max(200, inner - 12); // the hand's own padding
}

/** The card of `hand` for the cursor: the one that fits nearest to `index` (where it was; on a tie the one to
 * the right), else the card at `index`, else the first. */
function aim(hand, legal, index) {
  const at = Math.max(0, index);
  let best = null;
  hand.forEach((card, i) => {
    if (!legal.has(card)) return;
    const distance = Math.abs(i - at) * 2 + (i < at ? 1 : 0);
    if (best === null || distance < best.distance) best = { card, distance };
  });
  if (best) return best.card;
  return hand[Math.min(at, hand.length - 1)] || null;
}

/** Enter on a button or a link means that control (Draw, End turn, a link), never "lay the card under the cursor". */
function onControl(el) {
  return Boolean(el && el.closest("a[href], button, summary, [role='button'], [role='switch'], [role='menuitem']"));
}
