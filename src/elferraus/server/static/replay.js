// The replay viewer: a finished game's `elferraus/1` record, move by move,
// with every hand shown. The positions are computed here from the record.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./api.js";
import { rulesOf, fits, parseMove, sortCards, layOnRows } from "./cards.js";
import { renderBoard, miniCards, describeMove } from "./table.js";

/**
 * Every position of a recorded game (`elferraus/1`), from the deal to the end.
 * Returns {positions: [{hands, pile, rows, move, turn}], error}; a broken
 * record stops at the move it cannot apply and names it in `error`.
 */
function replayRecord(record) {
  const players = record.hands.length;
  let hands = record.hands.map((hand) => sortCards(hand));
  let pile = 0;
  let rows = {};
  const moves = record.moves || [];
  const positions = [{ hands, pile: record.pile.length, rows, move: null, index: 0 }];
  for (let i = 0; i < moves.length; i++) {
    const m = parseMove(moves[i]);
    if (!(m.seat >= 0 && m.seat < players)) return { positions, error: { index: i + 1, text: moves[i] } };
    hands = hands.slice();
    if (m.action === "lay") {
      if (!hands[m.seat].includes(m.card) || !fits(m.card, rows)) return { positions, error: { index: i + 1, text: moves[i] } };
      hands[m.seat] = hands[m.seat].filter((c) => c !== m.card);
      rows = layOnRows(rows, m.card);
    } else if (m.action === "draw") {
      const card = m.card || record.pile[pile];
      if (pile >= record.pile.length || (m.card && record.pile[pile] !== m.card)) {
        return { positions, error: { index: i + 1, text: moves[i] } };
      }
      pile += 1;
      hands[m.seat] = sortCards([...hands[m.seat], card]);
    }
    positions.push({ hands, pile: record.pile.length - pile, rows, move: moves[i], index: i + 1 });
  }
  return { positions, error: null };
}

export class ReplayScreen {
  /** `record`: a record object to show instead of fetching one. */
  constructor(root, gameId, ctx, record = null) {
    this.root = root;
    this.gameId = gameId;
    this.ctx = ctx;
    this.step = 0;
    this.timer = 0;
    this.record = null;
    this.error = "";
    root.className = "replay-screen";
    ctx.setConnection("");
    if (record) this.load(record);
    else {
      fill(root, h("p", { class: "loading" }, t("web_loading")));
      this.fetch();
    }
  }

  title() {
    return t("web_replay_title", { game: this.gameId });
  }

  async fetch() {
    try {
      this.load(await api(`/api/games/${encodeURIComponent(this.gameId)}/record`, undefined, t("web_replay_missing", { game: this.gameId })));
    } catch (error) {
      fill(this.root, h("p", { class: "error", role: "alert", "data-testid": "replay-error" }, error.message),
        h("p", {}, h("a", { href: "/", class: "button" }, t("web_back_lobby"))));
    }
  }

  load(record) {
    if (!record || !Array.isArray(record.hands) || !Array.isArray(record.pile)) {
      fill(this.root, h("p", { class: "error", role: "alert", "data-testid": "replay-error" }, t("web_replay_bad")));
      return;
    }
    this.record = record;
    this.rules = rulesOf(record.rules);
    const { positions, error } = replayRecord(record);
    this.positions = positions;
    this.error = error ? t("web_replay_broken", { n: error.index, move: error.text }) : "";
    this.step = 0;
    this.build();
    this.show();
  }

  names() {
    const players = this.record.hands.length;
    const given = Array.isArray(this.record.names) ? this.record.names : [];
    return Array.from({ length: players }, (_, i) => (typeof given[i] === "string" && given[i]) || t("setup_seat", { n: i + 1 }));
  }

  build() {
    const last = this.positions.length - 1;
    const button = (testid, label, text, onclick) => h("button", { type: "button", "data-testid": testid, "aria-label": label, onclick }, text);
    this.els = {
      head: h("h1", {}),
      position: h("p", { class: "replay-pos", "data-testid": "replay-pos", "aria-live": "polite" }),
      move: h("p", { class: "replay-move", "data-testid": "replay-move" }),
      slider: h("input", { type: "range", min: "0", max: String(last), value: "0", step: "1", "data-testid": "replay-slider",
        oninput: (e) => this.go(Number(e.target.value)) }),
      first: button("replay-first", "", "|◀", () => this.go(0)),
      prev: button("replay-prev", "", "◀", () => this.go(this.step - 1)),
      play: button("replay-play", "", "", () => this.toggle()),
      next: button("replay-next", "", "▶", () => this.go(this.step + 1)),
      end: button("replay-last", "", "▶|", () => this.go(last)),
      pile: h("span", { class: "pile", "data-testid": "pile" }),
      board: h("div", { class: "board-wrap" }),
      hands: h("ul", { class: "replay-hands", "data-testid": "replay-hands" }),
      result: h("section", { class: "result", "data-testid": "result", hidden: true }),
      error: h("p", { class: "error", role: "alert" }),
      download: h("a", { class: "button", "data-testid": "record-link" }),
    };
    const e = this.els;
    fill(this.root, h("div", { class: "replay" },
      e.head,
      h("div", { class: "replay-controls" }, e.first, e.prev, e.play, e.next, e.end, e.slider),
      e.position, e.move, e.error,
      h("section", { class: "table-area" }, h("div", { class: "board-head" }, e.pile), e.board),
      e.hands, e.result,
      h("p", {}, e.download)));
  }

  go(step) {
    const last = this.positions.length - 1;
    this.step = Math.max(0, Math.min(last, step));
    if (this.step === last) this.stop();
    this.show();
  }

  toggle() {
    if (this.timer) this.stop();
    else {
      if (this.step >= this.positions.length - 1) this.step = 0;
      this.timer = setInterval(() => this.go(this.step + 1), 700);
      this.label();
    }
  }

  stop() {
    clearInterval(this.timer);
    this.timer = 0;
    if (this.els) this.label();
  }

  label() {
    const e = this.els;
    e.first.setAttribute("aria-label", t("web_replay_first"));
    e.prev.setAttribute("aria-label", t("web_replay_prev"));
    e.next.setAttribute("aria-label", t("web_replay_next"));
    e.end.setAttribute("aria-label", t("web_replay_last"));
    e.play.textContent = this.timer ? t("web_replay_pause") : t("web_replay_play");
    e.slider.setAttribute("aria-label", t("web_replay_slider"));
    e.head.textContent = t("web_replay_title", { game: this.gameId });
    e.download.textContent = t("web_download");
    e.download.href = `/api/games/${encodeURIComponent(this.gameId)}/record`;
    e.download.download = `elferraus-${this.gameId}.json`;
    e.error.textContent = this.error;
    this.ctx.setContext(t("web_replay"));
  }

  show() {
    const e = this.els;
    const names = this.names();
    const moves = this.record.moves || [];
    const position = this.positions[this.step];
    const last = this.positions.length - 1;
    this.label();
    e.slider.value = String(this.step);
    e.slider.setAttribute("aria-valuetext", t("web_replay_pos", { n: this.step, total: moves.length }));
    e.first.disabled = e.prev.disabled = this.step === 0;
    e.next.disabled = e.end.disabled = this.step === last;
    e.position.textContent = t("web_replay_pos", { n: this.step, total: moves.length });
    e.move.textContent = position.move ? describeMove(position.move, names, null) : t("web_replay_deal");
    e.pile.textContent = `${t("pile")}: ${position.pile}`;
    e.pile.dataset.count = String(position.pile);
    const lastLaid = this.lastLayUpTo(this.step);
    fill(e.board, renderBoard(position.rows, this.rules.colors, lastLaid));
    const nextMove = moves[this.step] ? parseMove(moves[this.step]) : null;
    fill(e.hands, position.hands.map((hand, seat) => {
      const fitting = new Set(hand.filter((card) => fits(card, position.rows)));
      const toMove = nextMove && nextMove.seat === seat;
      const count = hand.length;
      return h("li", { class: `seat${toMove ? " to-move" : ""}`, "data-testid": `replay-hand-${seat}`, "aria-current": toMove ? "true" : null },
        h("span", { class: "seat-name" }, toMove ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶ ") : null, h("b", {}, names[seat]),
          " · ", `${count} ${count === 1 ? t("card") : t("cards")}`),
        miniCards(hand, fitting));
    }));
    const result = this.record.result;
    if (this.step === last && result && typeof result.winner === "number") {
      e.result.hidden = false;
      const penalties = result.penalties || [];
      fill(e.result, h("p", { class: "winner-line" }, t("winner_other", { name: names[result.winner] })),
        h("p", {}, `${t("penalties")}: `, names.map((name, i) => `${name} ${penalties[i] ?? "–"}`).join(" · ")));
    } else {
      e.result.hidden = true;
    }
  }

  lastLayUpTo(step) {
    const moves = this.record.moves || [];
    for (let i = step - 1; i >= 0; i--) {
      const m = parseMove(moves[i]);
      if (m.action === "lay") return m.card;
    }
    return null;
  }

  onKey(event) {
    if (!this.positions) return;
    const keys = { ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10 };
    if (event.target && event.target.type === "range") return;
    if (event.key in keys) this.go(this.step + keys[event.key]);
    else if (event.key === "Home") this.go(0);
    else if (event.key === "End") this.go(this.positions.length - 1);
    else if (event.key === " " && event.target === document.body) this.toggle();
    else return;
    event.preventDefault();
  }

  relabel() {
    if (this.record) this.show();
  }
}
