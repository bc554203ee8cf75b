// A room before the start: its seats, the invite link, the player's own
// link; the host starts, a visitor takes a free seat.

import { h, fill, copyButton } from "./dom.js";
import { t, seatName, levelWord } from "./i18n.js";
import { api } from "./api.js";
import { loadPresets, presetNamed } from "./presets.js";
import { presence } from "./table.js";

export class WaitingView {
  /** `room`: the RoomScreen (its code, own link, send() and joined()). */
  constructor(root, room) {
    this.root = root;
    this.room = room;
    this.model = null;
    this.joinSeat = null;
    this.joinName = "";
    this.nameInput = null;
    this.error = "";
    this.message = "";
    this.presets = null;
    this.closed = false;
    loadPresets().then((presets) => {
      this.presets = presets;
      if (this.model) this.render(this.model);
    });
  }

  /** The table took over the screen: draw nothing more. */
  close() {
    this.closed = true;
  }

  setError(text) {
    this.error = text || "";
    if (this.model) this.render(this.model);
  }

  render(m) {
    this.model = m;
    if (this.closed) return;
    const room = this.room;
    const code = room.code;
    const invite = `${location.origin}/r/${code}`;
    const mine = m.me !== null && room.token;
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
    const heading = h("h1", {}, t("web_room", { code: "" }), h("span", { class: "code", "data-testid": "room-code-display" }, code));
    const share = h("div", { class: "card-panel share" },
      h("label", { for: "invite" }, t("web_invite")),
      h("div", { class: "copy-line" },
        h("input", { id: "invite", readonly: true, value: invite, "data-testid": "invite-link", onfocus: (e) => e.target.select() }),
        copyButton(invite, "copy-invite")),
      h("p", { class: "muted" }, t("web_invite_code", { code })));
    let own = null;
    if (mine) {
      const link = `${location.origin}${room.ownLink()}`;
      own = h("details", { class: "card-panel own" }, h("summary", {}, t("web_own_link")),
        h("p", { class: "muted" }, t("web_own_link_hint")),
        h("div", { class: "copy-line" },
          h("input", { id: "own", readonly: true, value: link, "data-testid": "own-link", "aria-label": t("web_own_link"), onfocus: (e) => e.target.select() }),
          copyButton(link, "copy-own")));
    }
    const preset = presetNamed(this.presets, m.room.rules);
    const summary = [preset ? t(preset.key) : null, (m.room.rounds || 1) > 1 ? t("length_rounds", { n: m.room.rounds }) : t("length_single")];
    const seatsPanel = h("section", { class: "card-panel seats-panel", "aria-labelledby": "seats-head" },
      h("h2", { id: "seats-head" }, t("web_seats")),
      h("p", { class: "muted" }, summary.filter(Boolean).join(" · ")),
      h("ol", { class: "seat-list", "data-testid": "seats" }, seatItems));
    let parts;
    if (!mine) {
      let action;
      if (open.length) {
        // one input for the whole visit, so a state arriving while the visitor types does not disturb him
        this.nameInput = this.nameInput || h("input", { id: "join-name", "data-testid": "join-name", maxlength: "24", autocomplete: "nickname",
          value: this.joinName, oninput: (e) => { this.joinName = e.target.value; } });
        this.nameInput.placeholder = t("name_player", { n: (this.joinSeat ?? 0) + 1 });
        action = h("form", { class: "card-panel join-seat", onsubmit: (e) => { e.preventDefault(); this.join(); } },
          h("h2", {}, t("web_take_seat")),
          h("div", { class: "field" }, h("label", { for: "join-name" }, t("web_your_name")), this.nameInput),
          h("p", { class: "error", role: "alert", "data-testid": "join-error" }, this.error),
          h("button", { class: "primary", type: "submit", "data-testid": "join" }, t("web_join")));
      } else {
        action = h("p", { class: "waiting-note" }, t("web_room_full"));
      }
      const hint = h("p", { class: "watch-hint", "data-testid": "watch-hint" }, open.length ? t("web_watching_hint_free") : t("web_watching_hint"));
      parts = [heading, this.message ? h("p", { class: "error", role: "alert" }, this.message) : null, seatsPanel, action, hint, share];
    } else if (isHost) {
      const start = h("div", { class: "card-panel start-panel" },
        h("p", {}, t("web_start_hint")),
        h("p", { class: "error", role: "alert", "data-testid": "start-error" }, this.error),
        h("button", { class: "primary", "data-testid": "start", onclick: () => room.send({ type: "start" }) }, t("web_start")));
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
    this.error = "";
    try {
      const answer = await api(`/api/rooms/${this.room.code}/join`, { name, seat: this.joinSeat });
      this.message = "";
      this.room.joined(answer.token, answer.seat);
    } catch (error) {
      this.setError(error.message);
    }
  }
}
