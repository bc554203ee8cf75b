// A room: its seats before the start (waiting.js), then the table
// (table.js). Holds the room's connection; every `state` frame goes into the
// page's state (state.js) and is drawn from there.

import { h, fill } from "./dom.js";
import { t, has } from "./i18n.js";
import { tokenFor, seatFor, remember } from "./storage.js";
import { Connection } from "./connection.js";
import { page, enterRoom, takeFrame, remodel } from "./state.js";
import { TableScreen, neededFirst } from "./table.js";

export class RoomScreen {
  /** `ctx`: {setContext, setConnection} of the frame around the screen. */
  constructor(root, code, ctx) {
    this.root = root;
    this.code = code;
    this.ctx = ctx;
    this.table = null;
    this.waiting = null;
    this.pendingTimer = 0;
    this.previousTurn = null;
    this.gone = null;
    // The personal link is /r/CODE#t=TOKEN; the page adds &s=SEAT so that the
    // seat is known on another device before the game starts (no VIEW yet).
    const fragment = /(?:^#|&)t=([^&]+)/.exec(location.hash);
    const seatInLink = /(?:^#|&)s=(\d+)/.exec(location.hash);
    let token = tokenFor(code);
    if (fragment) {
      token = decodeURIComponent(fragment[1]);
      const known = tokenFor(code) === token ? seatFor(code) : null;
      remember(code, token, seatInLink ? Number(seatInLink[1]) : known);
    }
    enterRoom(code, token, token ? seatFor(code) : null);
    this.keepLink();
    this.connection = new Connection(code);
    this.connection.on({
      state: (frame) => this.onState(frame),
      error: (frame) => this.onError(frame),
      status: (status) => this.onStatus(status),
      reaction: (frame) => this.table && page.model && this.table.reactions.receive(frame, page.model),
      hint: (frame) => this.table && this.table.coach.hinted(frame),
    });
    ctx.setContext(t("web_room", { code }));
    fill(root, h("p", { class: "loading" }, t("web_connecting")));
    root.className = "room-screen";
    this.connection.connect(page.token);
  }

  get token() {
    return page.token;
  }

  title() {
    return t("web_room", { code: this.code });
  }

  /** The player's own link: token, and seat when known. */
  ownLink() {
    const seat = page.seat !== null ? `&s=${page.seat}` : "";
    return `/r/${this.code}#t=${encodeURIComponent(page.token)}${seat}`;
  }

  /** Keep the own link in the address bar, so that it can be bookmarked or copied. */
  keepLink() {
    if (!page.token) return;
    const [path, fragment] = this.ownLink().split("#");
    if (`${location.pathname}${location.hash}` !== `${path}#${fragment}`) history.replaceState(null, "", `${path}${location.search}#${fragment}`);
  }

  /** A seat was taken from this page: play it. */
  joined(token, seat) {
    enterRoom(this.code, token, seat);
    remember(this.code, token, seat);
    this.keepLink();
    this.connection.connect(token);
  }

  onStatus(status) {
    // the badge in the header is short (one line on a phone); its title and the screen reader say it whole
    const lost = page.frame && status !== "open";
    const words = { connecting: lost ? t("web_reconnecting_short") : t("web_connecting"), reconnecting: t("web_reconnecting_short"),
      refused: t("web_reconnecting_short") };
    this.ctx.setConnection(words[status] || "", lost || status === "reconnecting" || status === "refused" ? t("web_reconnecting") : "");
    // back online: the note that a move could not be sent is old
    if (status === "open" && this.offline) {
      this.offline = false;
      if (this.table && this.table.error === t("web_reconnecting")) this.table.setError("");
    }
  }

  onState(frame) {
    // Every state is the whole truth (its move log continues the one before
    // on this connection), in order; after a reconnect (even to a restarted
    // server) the newest one simply wins.
    if (this.gone) return;
    this.clearPending();
    const model = takeFrame(frame);
    if (model.me !== null && model.me !== page.seat && page.token) {
      page.seat = model.me;
      remember(this.code, page.token, page.seat);
      this.keepLink();
    }
    this.show(model);
  }

  show(model) {
    this.renderContext(model);
    if (model.status === "waiting" || !model.hasGame) this.renderWaiting(model);
    else this.renderTable(model);
  }

  onError(frame) {
    this.clearPending();
    if (frame.code === "no_room" || frame.code === "room_expired") {
      // The room is not there (any more): nothing to reconnect to. An expired room's seat went with it, so
      // this browser forgets it.
      this.connection.close();
      this.ctx.setConnection("");
      if (frame.code === "room_expired") {
        remember(this.code, null, null);
        enterRoom(this.code, null, null);
        history.replaceState(null, "", `${location.pathname}${location.search}`);
      }
      if (this.waiting) this.waiting.close();
      this.table = null;
      this.waiting = null;
      this.gone = frame;
      this.renderGone();
      return;
    }
    const text = frame.message || frame.code;
    if (frame.code === "bad_token") {
      remember(this.code, null, null);
      enterRoom(this.code, null, null);
      history.replaceState(null, "", `${location.pathname}${location.search}`);
      this.badToken = text;
      if (this.waiting) this.waiting.message = text;
      this.connection.connect(null);
    }
    if (this.table && this.table.coach.refused(frame.code, text)) return; // a refused hint: the coach says why
    if (this.table) this.table.setError(text);
    else if (this.waiting) this.waiting.setError(text);
  }

  /** The room there is not, or that expired: why, in the page's language (the server refuses before any hello
   * says which), and the way back. */
  renderGone() {
    const key = `web_error_${this.gone.code}`;
    const words = has(key) ? t(key) : this.gone.message || this.gone.code;
    this.ctx.setContext(t("web_room", { code: this.code }));
    fill(this.root, h("div", { class: "waiting" }, h("h1", {}, t("web_room", { code: this.code })),
      h("p", { class: "error", role: "alert", "data-testid": "room-error" }, words),
      h("p", {}, h("a", { class: "button", href: "/" }, t("web_back_lobby")))));
  }

  renderContext(model) {
    const room = model.room;
    const parts = [t("web_room", { code: this.code })];
    if ((room.rounds || 1) > 1 && room.round) parts.push(t("round_of", { round: room.round, rounds: room.rounds }));
    this.ctx.setContext(parts.join(" · "));
    document.title = `${parts.join(" · ")} · ${t("app_title")}`;
  }

  send(frame) {
    if (!this.connection.send(frame)) {
      this.offline = true;
      if (this.table) this.table.setError(t("web_reconnecting"));
      return false;
    }
    return true;
  }

  sendMove(move) {
    if (!page.model) return;
    if (this.table) this.table.setError("");
    if (this.send({ type: "move", move, seq: page.model.seq })) {
      if (this.table) this.table.setPending(true);
      clearTimeout(this.pendingTimer);
      this.pendingTimer = setTimeout(() => this.clearPending(), 4000);
    }
  }

  clearPending() {
    clearTimeout(this.pendingTimer);
    if (this.table && this.table.pending) this.table.setPending(false);
  }

  renderTable(model) {
    if (!this.table && this.firstModel === undefined) {
      const needed = neededFirst(model);
      if (needed) {
        // drawn once what it needs is here (or failed: then drawn as it can be), from the newest state by then
        this.firstModel = model;
        const draw = () => {
          const newest = this.firstModel;
          this.firstModel = null;
          if (!this.gone && !this.table && newest) this.show(newest);
        };
        needed.then(draw, draw);
        return;
      }
    }
    if (!this.table && this.firstModel) {
      this.firstModel = model; // still fetching: the newest state is the one to draw
      return;
    }
    if (!this.table) {
      if (this.waiting) this.waiting.close();
      this.waiting = null;
      this.root.replaceChildren();
      this.table = new TableScreen(this.root, {
        lay: (card) => this.sendMove(card),
        draw: () => this.sendMove("draw"),
        pass: () => this.sendMove("pass"),
        next: () => this.send({ type: "next" }),
        rematch: () => this.send({ type: "rematch" }),
        react: (reaction) => this.send({ type: "react", reaction }),
        send: (frame) => this.send(frame),
        ownLink: () => (page.token ? this.ownLink() : null),
      });
    }
    if (this.previousTurn !== model.turn) this.table.setError("");
    this.previousTurn = model.turn;
    this.table.update(model);
  }

  renderWaiting(model) {
    if (this.table) {
      this.table = null;
      this.root.className = "room-screen";
    }
    if (this.waiting) {
      this.waiting.render(model);
      return;
    }
    import("./waiting.js").then(({ WaitingView }) => {
      if (this.table || this.gone) return; // the game began meanwhile, or the room is gone
      this.waiting = this.waiting || new WaitingView(this.root, this);
      if (this.badToken) this.waiting.message = this.badToken;
      this.waiting.render(page.model);
    });
  }

  onKey(event) {
    if (this.gone) return;
    if (this.table && page.model && page.model.status !== "waiting") this.table.onKey(event);
  }

  relabel() {
    if (this.gone) {
      this.renderGone();
      return;
    }
    const model = remodel();
    if (!model) return;
    this.renderContext(model);
    if (this.table && model.status !== "waiting" && model.hasGame) this.table.relabel(model);
    else this.show(model);
    this.connection.relabel();
  }
}
