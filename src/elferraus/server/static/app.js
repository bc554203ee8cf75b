// Elfer raus! in the browser: one page for every route.
//   /            the lobby: create a game or enter a room code
//   /r/CODE      a room: seats before the start, then the table, then the result
//   /replay/ID   the replay viewer of a finished game
//   /rules       the rules in short

import { h, fill } from "./dom.js";
import { detectLang, loadMessages, rememberLang, t, lang } from "./i18n.js";
import { api } from "./api.js";
import { buildModel, TableScreen, levelWord, seatName, presence } from "./table.js";


const chrome = {};
let current = null; // the screen shown: {relabel(), onKey?(event), destroy?()}

// -- storage ----------------------------------------------------------------

export function tokenFor(code) {
  try {
    return localStorage.getItem(`elferraus:${code}`);
  } catch {
    return null;
  }
}

function seatFor(code) {
  try {
    const seat = localStorage.getItem(`elferraus-seat:${code}`);
    return seat === null ? null : Number(seat);
  } catch {
    return null;
  }
}

function remember(code, token, seat) {
  try {
    if (token) localStorage.setItem(`elferraus:${code}`, token);
    else localStorage.removeItem(`elferraus:${code}`);
    if (seat !== null && seat !== undefined) localStorage.setItem(`elferraus-seat:${code}`, String(seat));
    else localStorage.removeItem(`elferraus-seat:${code}`);
  } catch {
    /* nothing is remembered in private mode; the link in the address bar still works */
  }
}

function knownRooms() {
  const rooms = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const match = /^elferraus:([A-Z2-9]{4,12})$/.exec(localStorage.key(i) || "");
      if (match) rooms.push(match[1]);
    }
  } catch {
    /* none */
  }
  return rooms.sort();
}

// -- the frame around every screen ------------------------------------------

function buildChrome() {
  chrome.title = h("a", { class: "brand", href: "/", "data-testid": "home" });
  chrome.context = h("span", { class: "context", "data-testid": "context" });
  chrome.connection = h("span", { class: "connection", "data-testid": "connection", role: "status", hidden: true });
  chrome.rules = h("a", { class: "nav", href: "/rules", "data-testid": "rules-link" });
  chrome.lang = h("button", { class: "lang", type: "button", "data-testid": "lang-switch", onclick: () => switchLang() });
  chrome.main = h("main", { id: "main", tabindex: "-1" });
  fill(document.body,
    h("header", { class: "top" }, chrome.title, chrome.context, chrome.connection,
      h("nav", {}, chrome.rules, chrome.lang)),
    chrome.main);
  labelChrome();
}

function labelChrome() {
  const other = lang() === "de" ? "en" : "de";
  chrome.title.textContent = `${t("app_title")}`;
  chrome.rules.textContent = t("web_rules_link");
  chrome.lang.textContent = t(`language_${other}`);
  chrome.lang.setAttribute("lang", other);
  chrome.lang.setAttribute("aria-label", `${t("setup_language")}: ${t(`language_${other}`)}`);
  document.title = current && current.title ? `${current.title()} · ${t("app_title")}` : t("app_title");
}

export function setContext(text) {
  chrome.context.textContent = text || "";
}

export function setConnection(text) {
  chrome.connection.textContent = text || "";
  chrome.connection.hidden = !text;
}

async function switchLang(code = lang() === "de" ? "en" : "de") {
  rememberLang(code);
  const params = new URLSearchParams(location.search);
  if (params.has("lang")) {
    params.set("lang", code);
    history.replaceState(null, "", `${location.pathname}?${params}${location.hash}`);
  }
  await loadMessages(code);
  labelChrome();
  if (current && current.relabel) current.relabel();
  labelChrome();
}

// -- routing ----------------------------------------------------------------

async function route() {
  const path = location.pathname.replace(/\/index\.html$/, "/");
  let match;
  if ((match = /^\/r\/([A-Za-z0-9]+)\/?$/.exec(path))) {
    const code = match[1].toUpperCase();
    current = new RoomScreen(chrome.main, code, { connection: new Connection(code) });
  } else if ((match = /^\/replay\/([^/]+)\/?$/.exec(path))) {
    const replay = await import("./replay.js");
    current = new replay.ReplayScreen(chrome.main, decodeURIComponent(match[1]), { setContext, setConnection });
  } else if (/^\/rules\/?$/.test(path)) {
    const rules = await import("./rules.js");
    current = new rules.RulesScreen(chrome.main, { setContext, setConnection });
  } else {
    const lobby = await import("./lobby.js");
    current = new lobby.Lobby(chrome.main, { setContext, setConnection, switchLang, api, remember, knownRooms });
  }
  labelChrome();
}

export function showScreen(screen) {
  current = screen;
  labelChrome();
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = event.target && event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  if (current && current.onKey) current.onKey(event);
});

// -- talking to the server --------------------------------------------------

/** The WebSocket to /ws/CODE: hello, state frames, moves; reconnects with backoff. */
export class Connection {
  constructor(code) {
    this.code = code;
    this.ws = null;
    this.token = null;
    this.attempt = 0;
    this.timer = 0;
    this.pinger = 0;
    this.closed = false;
    this.handlers = { state() {}, error() {}, status() {} };
    this.wake = () => {
      if (!this.closed && (!this.ws || this.ws.readyState > 1) && document.visibilityState === "visible") this.open(true);
    };
    document.addEventListener("visibilitychange", this.wake);
    window.addEventListener("online", this.wake);
  }

  on(handlers) {
    Object.assign(this.handlers, handlers);
  }

  connect(token) {
    this.token = token || null;
    this.closed = false;
    this.attempt = 0;
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      old.onclose = null;
      old.close(1000);
    }
    this.open(false);
  }

  open(now) {
    clearTimeout(this.timer);
    if (this.ws && this.ws.readyState <= 1) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    this.handlers.status(this.attempt && !now ? "reconnecting" : "connecting");
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token, lang: lang() }));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!data || typeof data !== "object") return;
      if (data.type === "state") {
        this.attempt = 0;
        this.handlers.status("open");
        this.handlers.state(data);
      } else if (data.type === "error") {
        this.handlers.error(data);
      }
    };
    ws.onclose = (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.attempt += 1;
      const delay = Math.min(10000, 500 * 2 ** Math.min(this.attempt - 1, 5)) * (0.75 + Math.random() * 0.5);
      this.handlers.status(event.code === 1008 ? "refused" : "reconnecting");
      this.timer = setTimeout(() => this.open(false), delay);
    };
  }

  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** A new hello in another language: the server speaks in it from now on. */
  relabel() {
    if (this.ws) this.connect(this.token);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    document.removeEventListener("visibilitychange", this.wake);
    window.removeEventListener("online", this.wake);
    if (this.ws) this.ws.close(1000);
  }
}

// -- a room: seats, then the table ------------------------------------------

export class RoomScreen {
  /** `connection`: the room's Connection. */
  constructor(root, code, { connection, token, seat }) {
    this.root = root;
    this.code = code;
    this.connection = connection;
    this.state = null;
    this.table = null;
    this.pendingTimer = 0;
    this.joinSeat = null;
    this.joinName = "";
    this.joinError = "";
    this.message = "";
    // The personal link is /r/CODE#t=TOKEN; the page adds &s=SEAT so that the
    // seat is known on another device before the game starts (no VIEW yet).
    const fragment = /(?:^#|&)t=([^&]+)/.exec(location.hash);
    const seatInLink = /(?:^#|&)s=(\d+)/.exec(location.hash);
    if (token !== undefined) this.token = token;
    else if (fragment) {
      this.token = decodeURIComponent(fragment[1]);
      const known = tokenFor(code) === this.token ? seatFor(code) : null;
      remember(code, this.token, seatInLink ? Number(seatInLink[1]) : known);
    } else {
      this.token = tokenFor(code);
    }
    this.seat = seat !== undefined ? seat : this.token ? seatFor(code) : null;
    this.keepLink();
    connection.on({
      state: (frame) => this.onState(frame),
      error: (frame) => this.onError(frame),
      status: (status) => this.onStatus(status),
    });
    setContext(t("web_room", { code }));
    fill(root, h("p", { class: "loading" }, t("web_connecting")));
    root.className = "room-screen";
    connection.connect(this.token);
  }

  title() {
    return t("web_room", { code: this.code });
  }

  /** The player's own link: token, and seat when known. */
  ownLink() {
    const seat = this.seat !== null && this.seat !== undefined ? `&s=${this.seat}` : "";
    return `/r/${this.code}#t=${encodeURIComponent(this.token)}${seat}`;
  }

  /** Keep the own link in the address bar, so that it can be bookmarked or copied. */
  keepLink() {
    if (!this.token) return;
    const link = this.ownLink();
    if (`${location.pathname}${location.hash}` !== link) history.replaceState(null, "", `${link.split("#")[0]}${location.search}#${link.split("#")[1]}`);
  }

  onStatus(status) {
    this.status = status;
    const words = { connecting: this.state ? t("web_reconnecting") : t("web_connecting"), reconnecting: t("web_reconnecting"), refused: t("web_reconnecting") };
    setConnection(words[status] || "");
  }

  onState(frame) {
    // Every state is the whole truth, in order on one connection; after a
    // reconnect (even to a restarted server) the newest one simply wins.
    this.state = frame;
    this.clearPending();
    const model = buildModel(frame, this.token ? this.seat : null);
    if (model.me !== null && model.me !== this.seat && this.token) {
      this.seat = model.me;
      remember(this.code, this.token, this.seat);
      this.keepLink();
    }
    this.model = model;
    this.renderContext();
    if (model.status === "waiting" || !model.hasGame) this.renderWaiting();
    else this.renderTable();
  }

  onError(frame) {
    this.clearPending();
    if (frame.code === "no_room") {
      this.connection.close();
      setConnection("");
      fill(this.root, h("div", { class: "waiting" }, h("h1", {}, t("web_room", { code: this.code })),
        h("p", { class: "error", role: "alert", "data-testid": "room-error" }, frame.message || frame.code),
        h("p", {}, h("a", { class: "button", href: "/" }, t("web_back_lobby")))));
      return;
    }
    if (frame.code === "bad_token") {
      remember(this.code, null, null);
      this.token = null;
      this.seat = null;
      history.replaceState(null, "", `${location.pathname}${location.search}`);
      this.message = frame.message || "";
      this.connection.connect(null);
    }
    const text = frame.message || frame.code;
    if (this.table && this.model && this.model.status !== "waiting") this.table.setError(text);
    else {
      this.joinError = text;
      if (this.model) this.renderWaiting();
    }
  }

  renderContext() {
    const room = this.model.room;
    const parts = [t("web_room", { code: this.code })];
    if ((room.rounds || 1) > 1 && room.round) parts.push(t("round_of", { round: room.round, rounds: room.rounds }));
    setContext(parts.join(" · "));
    document.title = `${parts.join(" · ")} · ${t("app_title")}`;
  }

  send(frame) {
    if (!this.connection.send(frame)) {
      if (this.table) this.table.setError(t("web_reconnecting"));
      return false;
    }
    return true;
  }

  sendMove(move) {
    if (!this.model) return;
    if (this.table) this.table.setError("");
    if (this.send({ type: "move", move, seq: this.model.seq })) {
      if (this.table) this.table.setPending(true);
      clearTimeout(this.pendingTimer);
      this.pendingTimer = setTimeout(() => this.clearPending(), 4000);
    }
  }

  clearPending() {
    clearTimeout(this.pendingTimer);
    if (this.table && this.table.pending) this.table.setPending(false);
  }

  renderTable() {
    if (!this.table) {
      this.root.replaceChildren();
      this.table = new TableScreen(this.root, {
        lay: (card) => this.sendMove(card),
        draw: () => this.sendMove("draw"),
        pass: () => this.sendMove("pass"),
        next: () => this.send({ type: "next" }),
        rematch: () => this.send({ type: "rematch" }),
      });
      this.keysLine = h("p", { class: "keys muted" });
      this.root.querySelector(".play").append(this.keysLine);
    }
    if (this.previousTurn !== this.model.turn) this.table.setError("");
    this.previousTurn = this.model.turn;
    this.keysLine.textContent = this.model.me !== null ? t("web_keys") : "";
    this.keysLine.hidden = this.model.me === null;
    this.table.update(this.model);
  }

  onKey(event) {
    if (this.table && this.model && this.model.status !== "waiting") this.table.onKey(event);
  }

  relabel() {
    if (!this.model) return;
    this.model = buildModel(this.state, this.token ? this.seat : null);
    this.renderContext();
    if (this.model.status === "waiting" || !this.model.hasGame) this.renderWaiting();
    else {
      this.keysLine.textContent = this.model.me !== null ? t("web_keys") : "";
      this.table.model = this.model;
      this.table.relabel();
    }
    if (this.connection.relabel) this.connection.relabel();
  }

  // -- before the start -----------------------------------------------------

  renderWaiting() {
    if (this.table) {
      this.table = null;
      this.root.className = "room-screen";
    }
    const m = this.model;
    const invite = `${location.origin}/r/${this.code}`;
    const mine = m.me !== null && this.token;
    const isHost = mine && m.me === m.host;
    const open = m.seats.filter((s) => s.kind === "open").map((s) => s.seat);
    if (!mine && (this.joinSeat === null || !open.includes(this.joinSeat))) this.joinSeat = open.length ? open[0] : null;
    const focused = document.activeElement && document.activeElement.getAttribute("data-testid");
    const seatItems = m.seats.map((seat, i) => {
      const index = seat.seat ?? i;
      const you = mine && index === m.me;
      const label = [h("b", {}, seatName(seat, index))];
      if (index === m.host) label.push(h("span", { class: "tag" }, t("web_host")));
      if (you) label.push(h("span", { class: "tag you" }, t("seat_you")));
      if (seat.kind === "open") label.length = 0; // "free" follows
      if (seat.kind === "computer") label.push(h("span", { class: "level" }, t("web_seat_computer", { level: levelWord(seat.level) })));
      if (seat.kind === "open" && !mine) {
        const id = `join-seat-${index}`;
        return h("li", { class: "seat-line open", "data-testid": `seat-${index}` },
          h("input", { type: "radio", name: "join-seat", id, value: String(index), "data-testid": id,
            checked: this.joinSeat === index, onchange: () => { this.joinSeat = index; } }),
          h("label", { for: id }, t("setup_seat", { n: index + 1 }), " · ", t("web_seat_free")));
      }
      return h("li", { class: `seat-line${you ? " you" : ""}`, "data-testid": `seat-${index}` },
        h("span", { class: "seat-no" }, t("setup_seat", { n: index + 1 })), " ", label, " ", presence(seat));
    });
    const heading = h("h1", {}, t("web_room", { code: "" }), h("span", { class: "code", "data-testid": "room-code-display" }, this.code));
    const share = h("div", { class: "card-panel share" },
      h("label", { for: "invite" }, t("web_invite")),
      h("div", { class: "copy-line" },
        h("input", { id: "invite", readonly: true, value: invite, "data-testid": "invite-link", onfocus: (e) => e.target.select() }),
        copyButton(invite, "copy-invite")),
      h("p", { class: "muted" }, t("web_invite_code", { code: this.code })));
    let own = null;
    if (mine) {
      const link = `${location.origin}${this.ownLink()}`;
      own = h("details", { class: "card-panel own" }, h("summary", {}, t("web_own_link")),
        h("p", { class: "muted" }, t("web_own_link_hint")),
        h("div", { class: "copy-line" },
          h("input", { id: "own", readonly: true, value: link, "data-testid": "own-link", "aria-label": t("web_own_link"), onfocus: (e) => e.target.select() }),
          copyButton(link, "copy-own")));
    }
    const summary = [t(`rules_${m.rules.preset || "classic"}`), (m.room.rounds || 1) > 1 ? t("length_rounds", { n: m.room.rounds }) : t("length_single")];
    const seatsPanel = h("section", { class: "card-panel seats-panel", "aria-labelledby": "seats-head" },
      h("h2", { id: "seats-head" }, t("web_seats")),
      h("p", { class: "muted" }, summary.join(" · ")),
      h("ol", { class: "seat-list", "data-testid": "seats" }, seatItems));
    let parts;
    if (!mine) {
      let action;
      if (open.length) {
        // one input for the whole visit, so a state arriving while the visitor types does not disturb him
        this.nameInput = this.nameInput || h("input", { id: "join-name", "data-testid": "join-name", maxlength: "24", autocomplete: "nickname",
          value: this.joinName, oninput: (e) => { this.joinName = e.target.value; } });
        const name = this.nameInput;
        name.placeholder = t("name_player", { n: (this.joinSeat ?? 0) + 1 });
        action = h("form", { class: "card-panel join-seat", onsubmit: (e) => { e.preventDefault(); this.join(); } },
          h("h2", {}, t("web_take_seat")),
          h("div", { class: "field" }, h("label", { for: "join-name" }, t("web_your_name")), name),
          h("p", { class: "error", role: "alert", "data-testid": "join-error" }, this.joinError),
          h("button", { class: "primary", type: "submit", "data-testid": "join" }, t("web_join")));
      } else {
        action = h("p", { class: "waiting-note" }, t("web_room_full"));
      }
      parts = [heading, this.message ? h("p", { class: "error", role: "alert" }, this.message) : null, seatsPanel, action, share];
    } else if (isHost) {
      const start = h("div", { class: "card-panel start-panel" },
        h("p", {}, t("web_start_hint")),
        h("p", { class: "error", role: "alert", "data-testid": "start-error" }, this.joinError),
        h("button", { class: "primary", "data-testid": "start", onclick: () => this.send({ type: "start" }) }, t("web_start")));
      parts = [heading, share, seatsPanel, start, own];
    } else {
      parts = [heading, seatsPanel, h("p", { class: "waiting-note" }, t("web_wait_start", { name: m.names[m.host] })), share, own];
    }
    fill(this.root, h("div", { class: "waiting" }, parts));
    if (focused) {
      const el = this.root.querySelector(`[data-testid="${focused}"]`);
      if (el) el.focus();
    }
  }

  async join() {
    const name = (this.joinName || "").trim() || t("name_player", { n: (this.joinSeat ?? 0) + 1 });
    const button = this.root.querySelector('[data-testid="join"]');
    if (button) button.disabled = true;
    this.joinError = "";
    try {
      const answer = await (this.connection.join ? this.connection.join(name, this.joinSeat) : api(`/api/rooms/${this.code}/join`, { name, seat: this.joinSeat }));
      this.token = answer.token;
      this.seat = answer.seat;
      this.message = "";
      remember(this.code, this.token, this.seat);
      this.keepLink();
      this.connection.connect(this.token);
    } catch (error) {
      this.joinError = error.message;
      this.renderWaiting();
    }
  }
}

function copyButton(text, testid) {
  const button = h("button", { type: "button", class: "copy", "data-testid": testid, onclick: async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      const input = button.parentElement.querySelector("input");
      if (input) {
        input.select();
        ok = document.execCommand && document.execCommand("copy");
      }
    }
    button.textContent = ok ? t("web_copied") : t("web_copy_failed");
    setTimeout(() => { button.textContent = t("web_copy"); }, 2000);
  } }, t("web_copy"));
  return button;
}

// -- start ------------------------------------------------------------------

async function main() {
  const code = detectLang();
  await loadMessages(code);
  buildChrome();
  try {
    await route();
  } catch (error) {
    fill(chrome.main, h("p", { class: "error", role: "alert" }, String(error && error.message ? error.message : error)));
  }
}

main();
