// The lobby: "Play now" (three computers, the game starts at once), "Play with
// friends" (a room with a seat for a friend), every other choice (seats,
// rules, length) folded away under "Set up the game yourself", and a room by
// its code. The rules to choose from are the server's presets (GET /api/rules).

import { h, fill } from "./dom.js";
import { t, lang, levelWord, seatName, has } from "./i18n.js";
import { api } from "./api.js";
import { remember, knownRooms, savedName, saveName } from "./storage.js";
import { cardFace } from "./board.js";
import { loadPresets } from "./presets.js";

const LEVELS = ["easy", "medium", "hard", "expert", "master"];
const ROUND_CHOICES = [1, 3, 5, 10];
const PACE_CHOICES = [0.4, 0.8, 1.5, 0];
const CODE_ALPHABET = /[^ABCDEFGHJKMNPQRSTUVWXYZ23456789]/g;
const FAMILY_LEVEL = "medium"; // the lobby's default level: the computers of "Play now"


export class Lobby {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.values = { name: savedName(), players: 4, seats: ["open", "computer:medium", "computer:medium", "computer:medium", "computer:medium"], fill: FAMILY_LEVEL, rules: null, rounds: 1, pace: 0.8 };
    this.presets = null;
    this.setupOpen = false;
    ctx.setContext("");
    ctx.setConnection("");
    fill(root, h("p", { class: "loading" }, t("web_loading")));
    loadPresets().then((presets) => {
      this.presets = presets.presets;
      this.values.rules = presets.default;
      this.render();
    });
  }

  title() {
    return t("setup_heading");
  }

  relabel() {
    if (this.presets) this.render();
  }

  select(testid, label, options, value, onchange) {
    const id = `f-${testid}`;
    return h("div", { class: "field" }, h("label", { for: id }, label),
      h("select", { id, "data-testid": testid, onchange: (e) => onchange(e.target.value) },
        options.map(([v, text]) => h("option", { value: String(v), selected: String(v) === String(value) }, text))));
  }

  render() {
    const v = this.values;
    const levels = LEVELS.map((level) => [`computer:${level}`, t("web_seat_computer", { level: levelWord(level) })]);
    const seatFields = [];
    for (let i = 1; i < v.players; i++) {
      seatFields.push(this.select(`seat-kind-${i}`, t("setup_seat", { n: i + 1 }),
        [["open", t("web_seat_friend")], ...levels], v.seats[i - 1], (value) => { v.seats[i - 1] = value; }));
    }
    const fmt = (seconds) => (seconds ? t("pace_option", { seconds: seconds.toLocaleString(lang()) }) : t("pace_instant"));
    this.error = h("p", { class: "error", role: "alert", "data-testid": "lobby-error" }, this.error ? this.error.textContent : "");
    const quick = h("form", { class: "card-panel quick", "data-testid": "quick-form", onsubmit: (e) => { e.preventDefault(); this.create("now"); } },
      h("div", { class: "field" }, h("label", { for: "f-name" }, t("web_your_name")),
        h("input", { id: "f-name", "data-testid": "create-name", autocomplete: "nickname", maxlength: "24", value: v.name,
          placeholder: t("name_player", { n: 1 }), oninput: (e) => { v.name = e.target.value; } })),
      h("button", { class: "primary big", type: "submit", "data-testid": "play-now", "aria-describedby": "play-now-hint" },
        t("web_play_now")),
      h("p", { class: "muted hint", id: "play-now-hint" }, t("web_play_now_hint", { level: levelWord(FAMILY_LEVEL) })),
      h("button", { class: "big", type: "button", "data-testid": "play-friends", "aria-describedby": "play-friends-hint",
        onclick: () => this.create("friends") }, t("web_play_friends")),
      h("p", { class: "muted hint", id: "play-friends-hint" }, t("web_play_friends_hint")));
    const form = h("form", { class: "create", "data-testid": "create-form", onsubmit: (e) => { e.preventDefault(); this.create(); } },
      this.select("players", t("setup_players"), [2, 3, 4, 5, 6].map((n) => [n, String(n)]), v.players,
        (value) => { v.players = Number(value); this.render(); document.getElementById("f-players").focus(); }),
      h("fieldset", { class: "seats-fields" }, h("legend", {}, t("web_other_seats")), seatFields),
      this.select("rules", t("setup_rules"), this.presets.map((p) => [p.name, t(p.key)]), v.rules, (value) => { v.rules = value; }),
      this.select("rounds", t("setup_length"), ROUND_CHOICES.map((n) => [n, n === 1 ? t("length_single") : t("length_rounds", { n })]),
        v.rounds, (value) => { v.rounds = Number(value); }),
      h("details", { class: "more" }, h("summary", {}, t("web_more_options")),
        this.select("fill", t("web_fill"), LEVELS.map((level) => [level, levelWord(level)]), v.fill, (value) => { v.fill = value; }),
        this.select("pace", t("setup_pace"), PACE_CHOICES.map((s) => [s, fmt(s)]), v.pace, (value) => { v.pace = Number(value); })),
      h("button", { class: "primary", type: "submit", "data-testid": "create" }, t("web_create")));
    // (open as it was: the "toggle" event comes a moment after the click, maybe after a redraw)
    const shown = this.root.querySelector("details.setup");
    if (shown) this.setupOpen = shown.open;
    const setup = h("details", { class: "card-panel setup", "data-testid": "setup", open: this.setupOpen,
      ontoggle: (e) => { this.setupOpen = e.target.open; } },
    h("summary", { "data-testid": "setup-open" }, t("web_setup_own")), form);
    const codeInput = h("input", { id: "f-code", "data-testid": "room-code", autocomplete: "off", autocapitalize: "characters",
      spellcheck: "false", maxlength: "12", placeholder: "ABC234" });
    const join = h("form", { class: "card-panel join", onsubmit: (e) => {
      e.preventDefault();
      const code = codeInput.value.toUpperCase().replace(CODE_ALPHABET, "");
      if (code) location.assign(`/r/${code}`);
      else codeInput.focus();
    } },
    h("h2", {}, t("web_join_heading")),
    h("div", { class: "field" }, h("label", { for: "f-code" }, t("web_room_code")), codeInput),
    h("button", { type: "submit", "data-testid": "go-room" }, t("web_go")));
    const rooms = knownRooms();
    fill(this.root,
      h("div", { class: "lobby" },
        h("section", { class: "intro" },
          h("p", { class: "symbols fan", "aria-hidden": "true" }, ["R", "Y", "G", "B"].map((c) =>
            h("span", { class: `card c-${c} fits` }, cardFace(`${c}11`)))),
          h("h1", {}, t("app_title")), h("p", { class: "tagline" }, t("web_tagline"))),
        quick, this.error, setup, join,
        rooms.length ? h("section", { class: "card-panel rooms" }, h("h2", {}, t("web_your_rooms")),
          h("ul", {}, rooms.map((code) => h("li", {}, h("a", { href: `/r/${code}`, "data-testid": `room-${code}` },
            this.roomLine(code)))))) : null));
    this.root.className = "lobby-screen";
    this.askRooms(rooms);
  }

  /** Who plays in room `code` and how far it is, once the server said (else nothing yet). */
  roomLine(code) {
    const line = [h("b", { class: "code" }, code)];
    const room = this.rooms && this.rooms[code];
    if (room === null) line.push(h("span", { class: "room-state" }, t("web_room_state_gone")));
    if (!room) return line;
    const names = (room.seats || []).map((seat, i) => seatName(seat, i)).join(", ");
    const key = `web_room_state_${room.status}`;
    line.push(h("span", { class: "room-names" }, names), h("span", { class: "room-state" }, has(key) ? t(key) : room.status));
    return line;
  }

  /** The rooms this browser holds a seat in, as anybody may see them: asked once a visit, then drawn. */
  askRooms(codes) {
    if (this.rooms || !codes.length) return;
    this.rooms = {};
    Promise.all(codes.slice(0, 12).map((code) => api(`/api/rooms/${code}`).then((room) => [code, room], () => [code, null])))
      .then((answers) => {
        // drawn into the links alone: the rest of the lobby (a name being typed) stays as it is
        for (const [code, room] of answers) {
          this.rooms[code] = room;
          const link = this.root.querySelector(`[data-testid="room-${code}"]`);
          if (link) fill(link, this.roomLine(code));
        }
      });
  }

  /** Make the room: `way` "now" (three computers, started at once), "friends" (a seat open for a friend, the
   * others computers) or the choices of the set-up form. */
  async create(way = null) {
    const v = this.values;
    const name = v.name.trim() || t("name_player", { n: 1 });
    let body;
    if (way) {
      const computer = { kind: "computer", level: FAMILY_LEVEL };
      const seats = way === "now" ? [computer, computer, computer] : [{ kind: "open" }, computer, computer];
      body = { name, players: 4, rounds: 1, fill: FAMILY_LEVEL, seats, away: 60, pace: 0.6, start: way === "now" };
    } else {
      const seats = [];
      for (let i = 1; i < v.players; i++) {
        const kind = v.seats[i - 1] || "open";
        seats.push(kind === "open" ? { kind: "open" } : { kind: "computer", level: kind.split(":")[1] });
      }
      body = { name, players: v.players, rounds: v.rounds, fill: v.fill, seats, away: 60, pace: v.pace };
      if (v.rules) body.rules = v.rules; // else the server's default
    }
    const buttons = [...this.root.querySelectorAll('[data-testid="create"], [data-testid="play-now"], [data-testid="play-friends"]')];
    for (const button of buttons) button.disabled = true;
    this.error.textContent = "";
    try {
      const room = await api("/api/rooms", body);
      saveName(v.name.trim());
      remember(room.code, room.token, room.seat ?? 0);
      location.assign(`${room.link || `/r/${room.code}#t=${room.token}`}&s=${room.seat ?? 0}`);
    } catch (error) {
      this.error.textContent = error.message;
      for (const button of buttons) button.disabled = false;
    }
  }
}
