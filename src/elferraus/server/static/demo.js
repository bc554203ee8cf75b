// Dev only: ?demo=KIND shows the page with built-in sample states and no
// server (the words still come from GET /api/messages). A tiny local game
// stands in for the server, so the demo table can be played.
//   ?demo=1 (or table)  your turn at a 4-player table, round 2 of 3
//   ?demo=drawn         your turn after drawing a card that does not fit
//   ?demo=other         another player's turn
//   ?demo=two / six     2 players (20 cards in hand) / 6 players
//   ?demo=result        a round is over (match of 3)
//   ?demo=match         the match is over
//   ?demo=single        a single game is over
//   ?demo=waiting       the room before the start, you are the host
//   ?demo=guest         the room before the start, a visitor picks a seat
//   ?demo=spectator     watching a game
//   ?demo=replay        the replay viewer on a locally played game
// &seed=N changes the deal.

import { t, colorName } from "./i18n.js";
import { sortCards, fits, layOnRows, parseCard, points, isCard } from "./cards.js";

const HAND_SIZES = { 2: 20, 3: 20, 4: 15, 5: 12, 6: 10 };
const NAMES = ["Anna", "Ben", "Computer 3", "Dana", "Emil", "Computer 6"];
const KINDS = [
  { kind: "person", online: true },
  { kind: "person", online: false, auto: true },
  { kind: "computer", level: "hard" },
  { kind: "person", online: true },
  { kind: "person", online: true },
  { kind: "computer", level: "easy" },
];

function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** A small stand-in for the engine: classic rules, enough for a demo. */
export class LocalGame {
  constructor(players, seed, colors = "RYGB") {
    const rand = random(seed);
    this.players = players;
    this.colors = colors;
    for (;;) {
      const deck = [];
      for (const c of colors) for (let n = 1; n <= 20; n++) deck.push(`${c}${n}`);
      for (let i = deck.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [deck[i], deck[j]] = [deck[j], deck[i]];
      }
      const size = HAND_SIZES[players];
      this.hands = Array.from({ length: players }, (_, s) => sortCards(deck.slice(s * size, (s + 1) * size)));
      this.pile = deck.slice(players * size);
      if (this.opener()) break;
    }
    this.dealt = { hands: this.hands.map((hand) => [...hand]), pile: [...this.pile] };
    const opener = this.opener();
    this.turn = this.hands.findIndex((hand) => hand.includes(opener));
    this.rows = {};
    this.laid = [];
    this.draws = 0;
    this.drawn = null;
    this.moves = [];
    this.winner = null;
  }

  opener() {
    for (const c of this.colors) if (this.hands.some((hand) => hand.includes(`${c}11`))) return `${c}11`;
    return null;
  }

  legal() {
    if (this.winner !== null) return [];
    const hand = this.hands[this.turn];
    if (!Object.keys(this.rows).length) return [this.opener()];
    const lays = hand.filter((card) => fits(card, this.rows));
    if (this.laid.length) return [...lays, "pass"];
    if (this.draws) {
      if (this.drawn && fits(this.drawn, this.rows)) return [this.drawn, "pass"];
      if (this.draws < 3 && this.pile.length) return ["draw"];
      return ["pass"];
    }
    if (!this.pile.length) return lays.length ? lays : ["pass"];
    return [...lays, "draw"];
  }

  /** Why `move` is not legal now, in the catalogue's words. */
  explain(move) {
    if (move === "draw") {
      if (this.laid.length) return t("draw_after_lay");
      if (!this.pile.length) return t("pile_empty");
      return this.drawn ? t("drawn_fits", { drawn: this.drawn }) : t("draw_limit", { limit: 3 });
    }
    if (move === "pass") return t("pass_too_early");
    const card = parseCard(move);
    if (!this.hands[this.turn].includes(move)) return t("not_in_hand", { card: move });
    if (this.draws && !this.laid.length) return t("only_drawn_card", { drawn: this.drawn || "-" });
    const row = this.rows[card.color];
    if (!row) return t("row_not_open", { card: move, color_name: colorName(card.color), color: card.color });
    const fitting = [row[0] > 1 ? `${card.color}${row[0] - 1}` : null, row[1] < 20 ? `${card.color}${row[1] + 1}` : null].filter(Boolean);
    return t("not_fitting", { card: move, color_name: colorName(card.color), low: row[0], high: row[1], fitting: fitting.join(` ${t("or")} `) || t("nothing_more") });
  }

  push(move) {
    const seat = this.turn;
    if (!this.legal().includes(move)) throw new Error(this.explain(move));
    if (move === "draw") {
      const card = this.pile.shift();
      this.hands[seat] = sortCards([...this.hands[seat], card]);
      this.draws += 1;
      this.drawn = card;
      this.moves.push(`${seat} draw ${card}`);
      return;
    }
    if (move === "pass") {
      this.moves.push(`${seat} pass`);
      this.next();
      return;
    }
    const opening = this.moves.length === 0;
    const afterDraw = this.draws > 0;
    this.hands[seat] = this.hands[seat].filter((card) => card !== move);
    this.rows = layOnRows(this.rows, move);
    this.moves.push(`${seat} ${move}`);
    this.laid.push(move);
    if (!this.hands[seat].length) this.winner = seat;
    else if (opening || afterDraw) this.next();
  }

  next() {
    this.turn = (this.turn + 1) % this.players;
    this.laid = [];
    this.draws = 0;
    this.drawn = null;
  }

  botMove() {
    const legal = this.legal();
    const lays = legal.filter(isCard);
    if (lays.length && (this.laid.length < 2 || legal.length > 3)) return lays[0];
    if (legal.includes("draw")) return "draw";
    return legal.includes("pass") ? "pass" : legal[0];
  }

  view(seat) {
    const mine = seat === this.turn;
    return {
      seat, players: this.players, hand: [...this.hands[seat]], hand_counts: this.hands.map((hand) => hand.length),
      pile: this.pile.length, rows: this.rows, turn: this.turn, laid: [...this.laid],
      drawn: mine && this.drawn && fits(this.drawn, this.rows) && !this.laid.length ? this.drawn : null,
      draws: this.draws, winner: this.winner, legal: mine ? this.legal() : [],
      moves: this.moves.map((text) => {
        const [s, action] = text.split(" ");
        return action === "draw" && Number(s) !== seat ? `${s} draw` : text;
      }),
    };
  }

  frame() {
    const over = this.winner !== null;
    return {
      rows: this.rows, hand_counts: this.hands.map((hand) => hand.length), pile: this.pile.length, turn: this.turn,
      laid: [...this.laid], draws: this.draws, winner: this.winner, id: "demo",
      moves: this.moves.map((text) => (text.includes(" draw ") ? text.split(" ").slice(0, 2).join(" ") : text)),
      result: over ? { winner: this.winner, penalties: this.hands.map(points), hands: this.hands.map((hand) => [...hand]) } : null,
    };
  }

  record(names) {
    return {
      format: "elferraus/1", rules: { colors: this.colors, max_draws: 3, must_play: false, after_draw: "end" },
      hands: this.dealt.hands, pile: this.dealt.pile, moves: [...this.moves], names,
      result: this.winner !== null ? { winner: this.winner, penalties: this.hands.map(points) } : null,
    };
  }
}

/** Stands in for the WebSocket: answers hello, move, start, next and rematch from a LocalGame. */
class DemoConnection {
  constructor(setup) {
    Object.assign(this, setup);
    this.demo = true;
    this.seq = 100;
    this.handlers = {};
    this.timer = 0;
  }

  on(handlers) {
    this.handlers = handlers;
  }

  connect(token) {
    this.token = token;
    if (token && this.joined !== undefined) this.me = this.joined;
    setTimeout(() => {
      this.handlers.status("open");
      this.emit();
      this.runBots();
    }, 0);
  }

  room() {
    const seats = this.kinds.map((kind, seat) => ({
      seat, name: kind.kind === "open" ? null : this.names[seat], level: null, online: false, auto: false, ...kind,
    }));
    return {
      code: "DEMO23", status: this.status, rules: "classic", players: this.players, rounds: this.rounds, round: this.round,
      away: 60, pace: 0.8, seats, scores: this.scores, totals: this.totals(), host: 0,
    };
  }

  totals() {
    return Array.from({ length: this.players }, (_, i) => this.scores.reduce((sum, score) => sum + (score[i] || 0), 0));
  }

  emit() {
    this.seq += 1;
    const game = this.status === "waiting" ? null : this.game;
    this.handlers.state({
      type: "state", seq: this.seq, seat: this.me, room: this.room(),
      view: game && this.me !== null ? game.view(this.me) : null, game: game ? game.frame() : null,
    });
  }

  error(code, message) {
    setTimeout(() => this.handlers.error({ type: "error", code, message, seq: this.seq }), 30);
  }

  send(frame) {
    const game = this.game;
    if (frame.type === "move") {
      if (this.me === null) return this.error("not_a_player", "spectator"), true;
      if (frame.seq !== this.seq) return this.error("stale", ""), true;
      if (this.status !== "playing") return this.error("wrong_status", ""), true;
      if (game.turn !== this.me) return this.error("not_your_turn", t("status_other", { name: this.names[game.turn] })), true;
      try {
        game.push(frame.move);
      } catch (error) {
        return this.error("illegal", error.message), true;
      }
      setTimeout(() => {
        this.settle();
        this.emit();
        this.runBots();
      }, 60);
    } else if (frame.type === "start") {
      this.status = "playing";
      this.kinds = this.kinds.map((kind) => (kind.kind === "open" ? { kind: "computer", level: "medium" } : kind));
      setTimeout(() => { this.emit(); this.runBots(); }, 60);
    } else if (frame.type === "next" || frame.type === "rematch") {
      if (frame.type === "rematch") this.scores = [];
      this.round = frame.type === "rematch" ? 1 : this.round + 1;
      this.game = new LocalGame(this.players, this.seed + this.round + this.seq);
      this.status = "playing";
      setTimeout(() => { this.emit(); this.runBots(); }, 60);
    }
    return true;
  }

  /** After a winning lay: score the round. */
  settle() {
    if (this.game.winner === null || this.status !== "playing") return;
    this.scores = [...this.scores, this.game.hands.map(points)];
    this.status = this.round >= this.rounds ? "match_over" : "round_over";
  }

  runBots() {
    clearTimeout(this.timer);
    const game = this.game;
    if (!game || this.status !== "playing" || game.winner !== null || game.turn === this.me) return;
    this.timer = setTimeout(() => {
      game.push(game.botMove());
      this.settle();
      this.emit();
      this.runBots();
    }, this.pace);
  }

  join(name, seat) {
    this.names[seat] = name;
    this.kinds[seat] = { kind: "person", online: true };
    this.joined = seat;
    return Promise.resolve({ seat, token: "demo-token", link: `${location.pathname}${location.search}` });
  }

  relabel() {
    this.emit();
  }

  close() {
    clearTimeout(this.timer);
  }
}

/** Bots play for everybody until `stop(game)` is true. */
function playUntil(game, stop, limit = 400) {
  for (let i = 0; i < limit && game.winner === null && !stop(game); i++) game.push(game.botMove());
}

export function runDemo(kind, root, { RoomScreen, setContext, setConnection }) {
  const params = new URLSearchParams(location.search);
  const seed = Number(params.get("seed") || 7);
  const players = kind === "two" ? 2 : kind === "six" ? 6 : 4;
  const game = new LocalGame(players, seed);
  const setup = {
    players, seed, game, me: 0, status: "playing", rounds: 3, round: 2, pace: 700,
    names: NAMES.slice(0, players), kinds: KINDS.slice(0, players).map((k) => ({ ...k })),
    scores: [Array.from({ length: players }, (_, i) => (i === 2 ? 0 : 17 + 13 * i))],
  };
  const fresh = (g) => g.turn === 0 && g.laid.length === 0 && g.draws === 0 && g.legal().some(isCard);
  if (kind === "replay") {
    playUntil(game, () => false);
    return import("./replay.js").then((replay) => new replay.ReplayScreen(root, "demo", { setContext, setConnection }, game.record(setup.names)));
  }
  if (kind === "waiting" || kind === "guest") {
    setup.status = "waiting";
    setup.round = 0;
    setup.scores = [];
    setup.kinds = [{ kind: "person", online: true }, { kind: "open" }, { kind: "computer", level: "hard" }, { kind: "person", online: false }];
    setup.names = ["Anna", null, "Computer 3", "Dana"];
    if (kind === "guest") setup.me = null;
  } else if (kind === "result" || kind === "match" || kind === "single") {
    playUntil(game, () => false);
    setup.scores = [...(kind === "match" ? [setup.scores[0], setup.scores[0].map((p) => (p * 7) % 41)] : kind === "single" ? [] : setup.scores), game.hands.map(points)];
    setup.status = kind === "result" ? "round_over" : "match_over";
    setup.round = kind === "match" ? 3 : kind === "single" ? 1 : 2;
    if (kind === "single") setup.rounds = 1;
  } else if (kind === "drawn") {
    playUntil(game, (g) => g.moves.length > 14 && fresh(g));
    if (game.turn === 0) game.push("draw");
    while (game.turn === 0 && game.legal().includes("draw") && fits(game.drawn, game.rows) === false && game.draws < 2) game.push("draw");
  } else if (kind === "other") {
    playUntil(game, (g) => g.moves.length > 14 && g.turn === 2 && g.laid.length === 0 && g.draws === 0);
  } else {
    if (kind === "spectator") setup.me = null;
    playUntil(game, (g) => g.moves.length > (players === 2 ? 4 : 14) && fresh(g));
  }
  const connection = new DemoConnection(setup);
  return new RoomScreen(root, "DEMO23", { connection, token: setup.me === null ? null : "demo-token", seat: setup.me });
}
