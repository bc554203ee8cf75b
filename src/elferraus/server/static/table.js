// The table: rows, the other players, the hand, the status line, the move
// log and the result of a round. Everything is drawn from one `state` frame
// (the whole truth); the server decides what is legal.

import { h, fill, reducedMotion } from "./dom.js";
import { t, has, colorName } from "./i18n.js";
import {
  SYMBOLS, ELEVEN, parseCard, sortCards, rulesOf, lastTurns, isOpening, lastLay, parseMove, isCard,
} from "./cards.js";

// -- words ------------------------------------------------------------------

export function levelWord(level) {
  return level && has(`level_${level}`) ? t(`level_${level}`) : level || "";
}

export function seatName(seat, index) {
  if (seat && seat.name) return seat.name;
  if (seat && seat.kind === "computer") return t("name_computer", { n: index + 1 });
  return t("setup_seat", { n: index + 1 });
}

export function cardLabel(card, fitsNow = false) {
  const c = parseCard(card);
  if (!c) return card;
  return t(fitsNow ? "web_card_fits" : "web_card", { color: colorName(c.color), number: c.number });
}

/** A record move in words ("Anna laid R12", "You drew G3"). */
export function describeMove(text, names, you) {
  const m = parseMove(text);
  const name = names[m.seat] ?? t("setup_seat", { n: m.seat + 1 });
  const mine = you !== null && you !== undefined && m.seat === you;
  if (m.action === "pass") return mine ? t("you_pass") : t("did_pass", { name });
  if (m.action === "draw") {
    if (m.card) return mine ? t("you_draw", { card: m.card }) : t("did_draw_card", { name, card: m.card });
    return t("did_draw", { name });
  }
  return mine ? t("you_lay", { card: m.card }) : t("did_lay", { name, card: m.card });
}

/** A seat's last turn in a few words ("drew 2, laid Y13"). */
export function describeTurn(actions, opening) {
  if (!actions.length) return "";
  const lays = actions.filter((a) => a !== "draw" && a !== "pass");
  if (opening && lays.length) return t("last_opened", { card: lays[0] });
  const draws = actions.filter((a) => a === "draw").length;
  const cards = lays.join(" ");
  if (draws && lays.length) return t("last_drew_laid", { n: draws, cards });
  if (draws) return t("last_drew", { n: draws });
  if (lays.length) return t("last_laid", { cards });
  return t("last_ended");
}

// -- the model of one state frame -------------------------------------------

/** The parts of a `state` frame the page draws, with names and rules resolved. */
export function buildModel(state, knownSeat = null) {
  const room = state.room || {};
  const view = state.view || null;
  const game = state.game || null;
  const src = view || game;
  const seats = room.seats || [];
  const players = room.players || (src && src.hand_counts ? src.hand_counts.length : seats.length);
  const names = Array.from({ length: players }, (_, i) => seatName(seats[i], i));
  let me = view ? view.seat : state.seat ?? knownSeat;
  if (typeof me !== "number") me = null;
  return {
    seq: state.seq,
    room,
    status: room.status || "waiting",
    rules: rulesOf(room.rules ?? (src && src.rules)),
    players,
    seats,
    names,
    me,
    host: room.host ?? 0,
    view: Boolean(view),
    hand: view ? sortCards(view.hand || []) : null,
    legal: view ? view.legal || [] : [],
    rows: (src && src.rows) || {},
    counts: (src && src.hand_counts) || [],
    pile: src ? src.pile : null,
    turn: src ? src.turn : null,
    laid: (src && src.laid) || [],
    draws: (src && src.draws) || 0,
    drawn: view ? view.drawn ?? null : null,
    prompt: view ? view.prompt ?? null : null,
    moves: (src && src.moves) || [],
    winner: src ? src.winner ?? null : null,
    result: (game && game.result) || null,
    gameId: game ? game.id ?? game.game_id ?? game.game ?? (game.result && game.result.game) ?? null : null,
    hasGame: Boolean(src),
  };
}

export function isOver(m) {
  return m.winner !== null || m.status === "round_over" || m.status === "match_over";
}

/** What the reader may do now, in words: on his turn the server's `prompt` (the terminal's status line). */
export function statusText(m) {
  if (!m.hasGame) return "";
  if (m.winner !== null) return m.winner === m.me ? t("winner_you") : t("winner_other", { name: m.names[m.winner] });
  const legal = m.legal;
  if (m.me !== null && m.turn === m.me && legal.length && m.prompt) return t(m.prompt.key, m.prompt.params);
  if (m.turn === null || m.turn === undefined) return "";
  const seat = m.seats[m.turn];
  const name = m.names[m.turn];
  if (m.turn === m.me && seat && seat.auto) return t("web_auto_you");
  if (seat && (seat.kind === "computer" || seat.auto)) return t("status_thinking", { name });
  return t("status_other", { name });
}

// -- pieces -----------------------------------------------------------------

/** A card: its colour, letter and symbol, and its number. */
export function cardFace(card) {
  const c = parseCard(card);
  return [
    h("span", { class: "corner", "aria-hidden": "true" }, `${c.color}${SYMBOLS[c.color]}`),
    h("span", { class: "num", "aria-hidden": "true" }, String(c.number)),
  ];
}

/** A small card for lists (the result, the replay). */
export function miniCard(card, extra = "") {
  const c = parseCard(card);
  return h("span", { class: `mini c-${c.color} ${extra}`, role: "img", "aria-label": cardLabel(card) },
    h("span", { "aria-hidden": "true" }, `${SYMBOLS[c.color]}${c.color}${c.number}`));
}

export function miniCards(cards, fitting = null) {
  const list = sortCards(cards);
  if (!list.length) return h("span", { class: "muted" }, "–");
  return h("span", { class: "minis" }, list.map((card) => miniCard(card, fitting && fitting.has(card) ? "fits" : "")));
}

function rowLabel(letter, row) {
  const color = colorName(letter);
  if (!row) return t("web_row_closed", { color, card: `${letter}${ELEVEN}` });
  const next = [];
  if (row[0] > 1) next.push(`${letter}${row[0] - 1}`);
  if (row[1] < 20) next.push(`${letter}${row[1] + 1}`);
  return t("web_row_open", {
    color, low: row[0], high: row[1], next: next.length ? next.join(` ${t("or")} `) : t("nothing_more"),
  });
}

/** The rows 1 -> 20, every 11 in one column; slots (+7) where a card fits next; the last card laid marked. */
export function renderBoard(rows, colors, last) {
  const board = h("div", { class: "board", "data-testid": "board" });
  for (const letter of colors) {
    const row = rows[letter] || null;
    const el = h("div", {
      class: `row c-${letter}${row ? "" : " closed"}`, "data-testid": `row-${letter}`, role: "img",
      "aria-label": rowLabel(letter, row), "data-low": row ? row[0] : null, "data-high": row ? row[1] : null,
    }, h("span", { class: "row-label", "aria-hidden": "true" }, `${letter} ${SYMBOLS[letter]}`));
    for (let n = 1; n <= 20; n++) {
      const id = `${letter}${n}`;
      const eleven = n === ELEVEN ? " eleven" : "";
      if (!row) {
        if (n < ELEVEN) el.append(h("span", { class: `cell empty${eleven}`, "aria-hidden": "true" }, "·"));
        else if (n === ELEVEN) el.append(h("span", { class: `cell slot${eleven}`, "data-cell": id, "aria-hidden": "true" }, "+11"));
        else if (n === ELEVEN + 1) el.append(h("span", { class: "cell not-open", "aria-hidden": "true" }, t("not_open")));
        continue;
      }
      if (n >= row[0] && n <= row[1]) {
        const isLast = last === id ? " last" : "";
        el.append(h("span", { class: `cell laid${eleven}${isLast}`, "data-cell": id, "aria-hidden": "true" }, String(n)));
      } else if (n === row[0] - 1 || n === row[1] + 1) {
        el.append(h("span", { class: `cell slot${eleven}`, "data-cell": id, "aria-hidden": "true" }, `+${n}`));
      } else {
        el.append(h("span", { class: `cell empty${eleven}`, "aria-hidden": "true" }, "·"));
      }
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
function lineWidth(line, per) {
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

// -- the table screen -------------------------------------------------------

export class TableScreen {
  /** `actions`: {lay(card), draw(), pass(), next(), rematch()}. */
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.model = null;
    this.cursor = null;
    this.pending = false;
    this.error = "";
    this.logged = 0;
    this.build();
    this.resizeTimer = 0;
    window.addEventListener("resize", () => {
      clearTimeout(this.resizeTimer);
      this.resizeTimer = setTimeout(() => this.model && this.renderHand(), 120);
    });
  }

  build() {
    this.els = {
      seats: h("ul", { class: "seats", "data-testid": "opponents" }),
      boardHead: h("div", { class: "board-head" }),
      boardWrap: h("div", { class: "board-wrap" }),
      status: h("p", { class: "status", "data-testid": "status", role: "status", "aria-live": "polite" }),
      error: h("p", { class: "error", "data-testid": "error", role: "alert" }),
      lastMove: h("p", { class: "last-move", "data-testid": "last-move", "aria-live": "polite" }),
      handHead: h("h2", { class: "hand-head", id: "hand-head" }),
      hand: h("div", { class: "hand", "data-testid": "hand", role: "toolbar", "aria-labelledby": "hand-head" }),
      draw: h("button", { class: "action", "data-testid": "draw", "aria-keyshortcuts": "D", onclick: () => this.act("draw") }),
      end: h("button", { class: "action", "data-testid": "end-turn", "aria-keyshortcuts": "E", onclick: () => this.act("pass") }),
      result: h("section", { class: "result", "data-testid": "result", hidden: true, "aria-labelledby": "result-head" }),
      logHead: h("h2", { id: "log-head" }),
      log: h("ol", { class: "log", "data-testid": "log", "aria-labelledby": "log-head" }),
    };
    const e = this.els;
    this.handArea = h("section", { class: "hand-area" }, e.handHead, e.hand);
    this.actionsBar = h("div", { class: "actions" }, e.draw, e.end);
    fill(this.root,
      h("div", { class: "play" },
        e.seats,
        h("section", { class: "table-area", "aria-labelledby": "board-head" }, e.boardHead, e.boardWrap),
        h("div", { class: "status-area" }, e.status, e.error, e.lastMove),
        e.result, this.handArea, this.actionsBar),
      h("aside", { class: "log-area" }, e.logHead, e.log));
    this.root.classList.add("table-screen");
  }

  act(move) {
    if (this.pending) return;
    if (move === "draw" || move === "pass") this.actions[move === "draw" ? "draw" : "pass"]();
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
    const flight = this.prepareFlight(previous, model);
    const focused = document.activeElement && this.root.contains(document.activeElement)
      ? document.activeElement.getAttribute("data-testid") : null;
    const scroll = this.els.boardWrap.scrollLeft;
    this.render();
    if (previous && previous.hasGame) this.els.boardWrap.scrollLeft = scroll;
    else this.centerEleven();
    if (!previous || !previous.hasGame || model.moves.length !== previous.moves.length) this.revealLast();
    this.restoreFocus(focused, previous);
    if (flight) this.fly(flight);
    this.flipDrawn(previous, model);
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
    fill(e.seats, order.map((seat) => renderSeat(m, seat)));
    e.seats.setAttribute("aria-label", t("web_players"));
    const moving = e.seats.querySelector(".to-move");
    if (moving && e.seats.scrollWidth > e.seats.clientWidth) {
      const strip = e.seats.getBoundingClientRect();
      const chip = moving.getBoundingClientRect();
      if (chip.left < strip.left) e.seats.scrollLeft -= strip.left - chip.left + 8;
      else if (chip.right > strip.right) e.seats.scrollLeft += chip.right - strip.right + 8;
    }
    // the table
    const parts = [`${t("pile")}: ${m.pile ?? 0}`];
    if (m.rules.preset && has(`rules_${m.rules.preset}`)) parts.push(t(`rules_${m.rules.preset}`).split(":")[0]);
    fill(e.boardHead, h("h2", { id: "board-head" }, t("web_table")),
      h("span", { class: "pile", "data-testid": "pile", "data-count": m.pile ?? 0 }, parts.join(" · ")));
    fill(e.boardWrap, renderBoard(m.rows, m.rules.colors, lastLay(m.moves)));
    // the status
    e.status.textContent = statusText(m);
    e.status.classList.toggle("mine", m.me !== null && m.turn === m.me && m.legal.length > 0);
    e.error.textContent = this.error;
    const latest = m.moves.length ? describeMove(m.moves[m.moves.length - 1], m.names, m.me) : "";
    if (e.lastMove.textContent !== latest) e.lastMove.textContent = latest;
    // the result of a finished round
    if (over && (m.result || m.winner !== null)) {
      e.result.hidden = false;
      fill(e.result, renderResult(m, this.actions));
    } else {
      e.result.hidden = true;
      e.result.replaceChildren();
    }
    this.renderHand();
    this.renderButtons();
    this.renderLog();
  }

  legalCards() {
    const m = this.model;
    return new Set(m.me !== null && m.turn === m.me && !isOver(m) ? m.legal.filter(isCard) : []);
  }

  renderHand() {
    const m = this.model;
    const e = this.els;
    if (m.me === null) {
      fill(e.handHead, t("web_watching"));
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
    if (!hand.includes(this.cursor)) this.cursor = hand.find((c) => legal.has(c)) || hand[0] || null;
    const width = e.hand.clientWidth || this.root.clientWidth || 360;
    const lines = handLines(hand, width);
    const rendered = lines.map((line) => h("div", { class: "hand-line" }, line.map((card, i) => {
      const fitsNow = legal.has(card);
      const groupStart = i > 0 && line[i - 1][0] !== card[0];
      return h("button", {
        class: `card c-${card[0]}${fitsNow ? " fits" : myTurn ? " dim" : ""}${groupStart ? " group-start" : ""}`,
        "data-testid": `card-${card}`, "data-card": card, "aria-label": cardLabel(card, fitsNow),
        tabindex: card === this.cursor ? "0" : "-1",
        onclick: () => { this.cursor = card; this.act(card); },
        onfocus: () => { this.cursor = card; this.markTarget(card); },
        onblur: () => this.markTarget(null),
        onmouseenter: () => this.markTarget(card),
        onmouseleave: () => this.markTarget(null),
      }, cardFace(card));
    })));
    fill(e.hand, rendered);
    e.hand.classList.toggle("two-lines", lines.length > 1);
    // a very long hand (a 2-player game after drawing) gets narrower cards rather than a third line
    const longest = lines.reduce((a, b) => (lineWidth(b, CARD_MIN) > lineWidth(a, CARD_MIN) ? b : a), []);
    const over = lineWidth(longest, CARD_MIN) - width;
    const narrow = over > 0 ? Math.max(22, CARD_MIN - Math.ceil(over / longest.length)) : CARD_MIN;
    e.hand.style.setProperty("--card-min", `${narrow}px`);
    e.hand.classList.toggle("narrow", narrow < 28);
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
    e.draw.disabled = this.pending || !mine || !m.legal.includes("draw");
    e.end.disabled = this.pending || !mine || !m.legal.includes("pass");
    this.actionsBar.hidden = m.me === null || isOver(m);
    e.hand.setAttribute("aria-busy", this.pending ? "true" : "false");
  }

  renderLog() {
    const m = this.model;
    const e = this.els;
    e.logHead.textContent = t("web_log");
    // a new round or a resync with fewer moves: start over
    if (m.moves.length < this.logged || this.logNames !== m.names.join("\u0000") || this.logLang !== document.documentElement.lang) {
      e.log.replaceChildren();
      this.logged = 0;
    }
    this.logNames = m.names.join("\u0000");
    this.logLang = document.documentElement.lang;
    for (let i = this.logged; i < m.moves.length; i++) {
      const move = parseMove(m.moves[i]);
      e.log.append(h("li", { class: move.seat === m.me ? "own" : "" }, describeMove(m.moves[i], m.names, m.me)));
    }
    this.logged = m.moves.length;
    const area = e.log.parentElement;
    e.log.scrollTop = e.log.scrollHeight;
    if (area) area.scrollTop = area.scrollHeight;
  }

  /** Relabel everything after a change of language. */
  relabel() {
    if (!this.model) return;
    this.logged = 0;
    this.els.log.replaceChildren();
    this.render();
  }

  centerEleven() {
    const wrap = this.els.boardWrap;
    if (wrap.scrollWidth <= wrap.clientWidth) return;
    const cell = wrap.querySelector(".cell.eleven");
    if (!cell) return;
    const target = cell.offsetLeft + cell.offsetWidth / 2 - wrap.clientWidth / 2;
    wrap.scrollLeft = Math.max(0, target);
  }

  /** Scroll the rows sideways so that the card laid last is in view. */
  revealLast() {
    const wrap = this.els.boardWrap;
    const cell = wrap.querySelector(".cell.last");
    if (!cell || wrap.scrollWidth <= wrap.clientWidth) return;
    const label = wrap.querySelector(".row-label");
    const inset = label ? label.offsetWidth : 0;
    const box = wrap.getBoundingClientRect();
    const rect = cell.getBoundingClientRect();
    const left = rect.left - box.left;
    if (left < inset + 4) wrap.scrollLeft += left - inset - rect.width;
    else if (rect.right - box.left > wrap.clientWidth - 4) wrap.scrollLeft += rect.right - box.left - wrap.clientWidth + rect.width;
  }

  restoreFocus(testid, previous) {
    if (!testid) return;
    let el = this.root.querySelector(`[data-testid="${testid}"]`);
    if (!el && testid.startsWith("card-")) {
      const cards = [...this.els.hand.querySelectorAll(".card")];
      const before = previous && previous.hand ? previous.hand.indexOf(testid.slice(5)) : 0;
      el = cards[Math.min(Math.max(before, 0), cards.length - 1)] || null;
      if (el) {
        this.cursor = el.dataset.card;
        for (const card of cards) card.tabIndex = card === el ? 0 : -1;
      }
    }
    if (el && !el.disabled) el.focus({ preventScroll: true });
  }

  /** Keys: arrows move through the hand, Enter lays, d draws, e ends the turn (z and b too, as in German). */
  onKey(event) {
    const m = this.model;
    if (!m || m.me === null) return;
    const key = event.key;
    const lower = key.length === 1 ? key.toLowerCase() : "";
    if (lower === "d" || lower === "z") {
      if (!this.els.draw.disabled) {
        event.preventDefault();
        this.act("draw");
      }
      return;
    }
    if (lower === "e" || lower === "b") {
      if (!this.els.end.disabled) {
        event.preventDefault();
        this.act("pass");
      }
      return;
    }
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
    } else if (key === "Enter" && !inHand && legal.has(this.cursor)) {
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

  // -- motion ---------------------------------------------------------------

  prepareFlight(previous, model) {
    if (!previous || !previous.hasGame || reducedMotion()) return null;
    if (model.moves.length <= previous.moves.length || model.moves.length - previous.moves.length > 3) return null;
    const fresh = model.moves.slice(previous.moves.length).map(parseMove).filter((m) => m.action === "lay");
    if (!fresh.length) return null;
    const move = fresh[fresh.length - 1];
    let from = null;
    if (move.seat === previous.me) {
      const el = this.els.hand.querySelector(`[data-card="${move.card}"]`);
      if (el) from = el.getBoundingClientRect();
    } else {
      const el = this.els.seats.querySelector(`[data-testid="seat-${move.seat}"]`);
      if (el) from = el.getBoundingClientRect();
    }
    return from ? { card: move.card, from } : null;
  }

  fly({ card, from }) {
    const cell = this.els.boardWrap.querySelector(`[data-cell="${card}"]`);
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

  flipDrawn(previous, model) {
    if (!previous || model.me === null || reducedMotion()) return;
    if (model.moves.length !== previous.moves.length + 1) return;
    const move = parseMove(model.moves[model.moves.length - 1]);
    if (move.action !== "draw" || move.seat !== model.me || !move.card) return;
    const el = this.els.hand.querySelector(`[data-card="${move.card}"]`);
    if (el && typeof el.animate === "function") {
      el.animate([{ transform: "rotateY(90deg)" }, { transform: "rotateY(0deg)" }], { duration: 250, easing: "ease-out" });
    }
  }
}

function renderSeat(m, index) {
  const seat = m.seats[index] || { kind: "person" };
  const turns = lastTurns(m.moves, m.players);
  const last = describeTurn(turns[index] || [], isOpening(m.moves, index));
  const toMove = m.hasGame && !isOver(m) && m.turn === index;
  const count = m.counts[index] ?? 0;
  const isWinner = m.winner === index;
  return h("li", {
    class: `seat${toMove ? " to-move" : ""}${isWinner ? " winner" : ""}`, "data-testid": `seat-${index}`,
    "aria-current": toMove ? "true" : null,
  },
  h("span", { class: "seat-name" }, toMove ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶ ") : null,
    h("b", {}, m.names[index]),
    seat.kind === "computer" && seat.level ? h("span", { class: "level" }, ` (${levelWord(seat.level)})`) : null,
    toMove ? h("span", { class: "sr-only" }, `, ${t("web_to_move")}`) : null),
  h("span", { class: "seat-count", "data-testid": `count-${index}` }, h("b", {}, String(count)), ` ${count === 1 ? t("card") : t("cards")}`),
  presence(seat),
  last ? h("span", { class: "seat-last" }, last) : null);
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

// -- the end of a round -----------------------------------------------------

function renderResult(m, actions) {
  const result = m.result || {};
  const winner = result.winner ?? m.winner;
  const round = m.room.round || (m.room.scores ? m.room.scores.length : 1);
  const penalties = result.penalties || [];
  const hands = result.hands || [];
  const parts = [h("h2", { id: "result-head" }, t("result_title", { round }))];
  parts.push(h("p", { class: "winner-line", "data-testid": "winner" },
    winner === m.me ? t("winner_you") : t("winner_other", { name: m.names[winner] })));
  const body = [];
  for (let i = 0; i < m.players; i++) {
    const cards = hands[i] || (i === m.me && m.hand ? m.hand : null);
    body.push(h("tr", { class: i === winner ? "winner" : "", "data-testid": `result-seat-${i}` },
      h("th", { scope: "row" }, m.names[i]),
      h("td", {}, cards ? miniCards(cards) : "–"),
      h("td", { class: "points" }, penalties[i] !== undefined ? String(penalties[i]) : "–")));
  }
  parts.push(h("table", { class: "result-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("result_player")),
      h("th", { scope: "col" }, t("result_left")), h("th", { scope: "col", class: "num" }, t("penalties")))),
    h("tbody", {}, body)));
  const scores = m.room.scores || [];
  const totals = m.room.totals || [];
  const rounds = m.room.rounds || 1;
  if (rounds > 1 || scores.length > 1) {
    const head = [h("th", { scope: "col" }, t("result_player"))];
    scores.forEach((_, r) => head.push(h("th", { scope: "col", class: "num" }, t("round_short", { round: r + 1 }))));
    head.push(h("th", { scope: "col", class: "num" }, t("result_total")));
    const rowsEls = [];
    for (let i = 0; i < m.players; i++) {
      rowsEls.push(h("tr", {}, h("th", { scope: "row" }, m.names[i]),
        scores.map((score) => h("td", {}, String(score[i] ?? ""))),
        h("td", { class: "points" }, String(totals[i] ?? ""))));
    }
    parts.push(h("h3", {}, m.status === "match_over" ? t("web_match_final") : t("match_table", { round: scores.length })),
      h("table", { class: "match-table", "data-testid": "match-table" }, h("thead", {}, h("tr", {}, head)), h("tbody", {}, rowsEls)));
    if (m.status === "match_over" && totals.length) parts.push(h("p", { class: "winner-line" }, matchWinner(m, totals)));
  } else if (m.status !== "match_over" && rounds > 1) {
    parts.push(h("p", {}, t("round_of", { round, rounds })));
  }
  const buttons = [];
  const isHost = m.me !== null && m.me === m.host;
  if (m.status === "round_over") {
    if (isHost) buttons.push(h("button", { class: "primary", "data-testid": "next-round", onclick: () => actions.next() }, t("button_next_round")));
    else parts.push(h("p", { class: "muted" }, t("web_wait_next", { name: m.names[m.host] })));
  } else if (m.status === "match_over") {
    if (isHost) buttons.push(h("button", { class: "primary", "data-testid": "rematch", onclick: () => actions.rematch() }, t("web_rematch")));
    else parts.push(h("p", { class: "muted" }, t("web_wait_rematch", { name: m.names[m.host] })));
  }
  if (m.gameId !== null && m.gameId !== undefined) {
    const id = encodeURIComponent(m.gameId);
    buttons.push(h("a", { class: "button", href: `/replay/${id}`, "data-testid": "replay-link" }, t("web_replay")));
    buttons.push(h("a", { class: "button", href: `/api/games/${id}/record`, download: `elferraus-${m.gameId}.json`, "data-testid": "record-link" }, t("web_download")));
  }
  if (buttons.length) parts.push(h("div", { class: "result-buttons" }, buttons));
  return parts;
}

function matchWinner(m, totals) {
  const best = Math.min(...totals);
  const leaders = totals.map((p, i) => (p === best ? i : -1)).filter((i) => i >= 0);
  if (leaders.length > 1) return t("match_over_tie", { points: best, names: leaders.map((i) => m.names[i]).join(", ") });
  return leaders[0] === m.me ? t("match_over_you", { points: best }) : t("match_over_other", { name: m.names[leaders[0]], points: best });
}
