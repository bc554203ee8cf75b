// The replay viewer: a finished game, move by move, with every hand shown.
// The server replays the record (GET /api/games/ID/replay) and sends every
// position ready to draw; this steps through them.

import { h, fill } from "./dom.js";
import { t, say } from "./i18n.js";
import { api } from "./api.js";
import { renderBoard, miniCards, centerEleven } from "./board.js";

export class ReplayScreen {
  constructor(root, gameId, ctx) {
    this.root = root;
    this.gameId = gameId;
    this.ctx = ctx;
    this.step = 0;
    this.timer = 0;
    this.replay = null;
    root.className = "replay-screen";
    ctx.setConnection("");
    fill(root, h("p", { class: "loading" }, t("web_loading")));
    this.fetch();
  }

  title() {
    return t("web_replay_title", { game: this.gameId });
  }

  async fetch() {
    try {
      this.load(await api(`/api/games/${encodeURIComponent(this.gameId)}/replay`, undefined, t("web_replay_missing", { game: this.gameId })));
    } catch (error) {
      fill(this.root, h("p", { class: "error", role: "alert", "data-testid": "replay-error" }, error.message),
        h("p", {}, h("a", { href: "/", class: "button" }, t("web_back_lobby"))));
    }
  }

  load(replay) {
    if (!replay || !Array.isArray(replay.steps) || !replay.steps.length) {
      fill(this.root, h("p", { class: "error", role: "alert", "data-testid": "replay-error" }, t("web_replay_bad")));
      return;
    }
    this.replay = replay;
    this.positions = replay.steps;
    this.step = 0;
    this.build();
    this.show();
    centerEleven(this.els.board); // a narrow screen starts with the 11s in the middle, as the table does
  }

  names() {
    const given = Array.isArray(this.replay.names) ? this.replay.names : [];
    return Array.from({ length: this.replay.players }, (_, i) => given[i] || t("setup_seat", { n: i + 1 }));
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
      download: h("a", { class: "button", "data-testid": "record-link" }),
    };
    const e = this.els;
    fill(this.root, h("div", { class: "replay" },
      e.head,
      h("div", { class: "replay-controls" }, e.first, e.prev, e.play, e.next, e.end, e.slider),
      e.position, e.move,
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
    this.ctx.setContext(t("web_replay"));
  }

  show() {
    const e = this.els;
    const names = this.names();
    const position = this.positions[this.step];
    const last = this.positions.length - 1;
    this.label();
    e.slider.value = String(this.step);
    e.slider.setAttribute("aria-valuetext", t("web_replay_pos", { n: this.step, total: last }));
    e.first.disabled = e.prev.disabled = this.step === 0;
    e.next.disabled = e.end.disabled = this.step === last;
    e.position.textContent = t("web_replay_pos", { n: this.step, total: last });
    e.move.textContent = position.move ? say(position.move, names) : t("web_replay_deal");
    e.pile.textContent = `${t("pile")}: ${position.pile}`;
    e.pile.dataset.count = String(position.pile);
    const scroll = e.board.scrollLeft;
    fill(e.board, renderBoard(position.rows, position.slots, this.replay.rules.colors, position.last_lay && position.last_lay.card));
    e.board.scrollLeft = scroll;
    const fitting = new Set(position.fits);
    fill(e.hands, position.hands.map((hand, seat) => {
      const toMove = position.turn === seat;
      const count = hand.length;
      return h("li", { class: `seat${toMove ? " to-move" : ""}`, "data-testid": `replay-hand-${seat}`, "aria-current": toMove ? "true" : null },
        h("span", { class: "seat-name" }, toMove ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶ ") : null, h("b", {}, names[seat]),
          " · ", `${count} ${count === 1 ? t("card") : t("cards")}`),
        miniCards(hand, fitting));
    }));
    const result = this.replay.result;
    if (this.step === last && result) {
      e.result.hidden = false;
      const penalties = result.penalties || [];
      fill(e.result, h("p", { class: "winner-line" }, say(result.status, names)),
        h("p", {}, `${t("penalties")}: `, names.map((name, i) => `${name} ${penalties[i] ?? "–"}`).join(" · ")));
    } else {
      e.result.hidden = true;
    }
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
    if (this.replay) this.show();
  }
}
