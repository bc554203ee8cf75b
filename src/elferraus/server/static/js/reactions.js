// Quick reactions at the table: a "React" button opens a few fixed phrases and
// emoji; the page sends the one chosen by its id (never text), and shows each
// reaction the server tells it beside its sender's seat, in the reader's
// language, for a few seconds (docs/web-protocol.md). The server limits how
// often a connection may react and says so when it refuses one.

import { h, fill, icon } from "./dom.js";
import { t } from "./i18n.js";

/** Every reaction, as the server knows them (server/rooms/reactions.py), in the order offered. */
export const REACTIONS = [
  { id: "well_played" },
  { id: "oops" },
  { id: "hurry" },
  { id: "thanks" },
  { id: "thumbs_up", emoji: "👍" },
  { id: "smile", emoji: "😄" },
  { id: "wow", emoji: "😮" },
  { id: "party", emoji: "🎉" },
];
const BY_ID = new Map(REACTIONS.map((reaction) => [reaction.id, reaction]));
export const SHOWN_MS = 4000;

/** A reaction in the reader's language: its words, and its emoji if it has one. */
function face(reaction) {
  const words = t(`reaction_${reaction.id}`);
  return reaction.emoji
    ? [h("span", { class: "emoji", "aria-hidden": "true" }, reaction.emoji), h("span", { class: "sr-only" }, words)]
    : [words];
}

/** A speech bubble in the text's colour: the React button's icon. */
function bubbleIcon() {
  return icon({ class: "react-icon", viewBox: "0 0 24 24" },
    { d: "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H10l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" });
}

export class Reactions {
  /** `send(id)`: send a reaction; `announce(text)`: tell a screen reader. */
  constructor(send, announce) {
    this.send = send;
    this.announce = announce;
    this.shown = new Map(); // seat -> {id, timer}
    this.model = null;
    this.toggle = h("button", {
      type: "button", class: "react-toggle", "data-testid": "react", "aria-expanded": "false", "aria-controls": "reaction-choices",
      onclick: () => this.setOpen(this.panel.hidden),
    });
    this.panel = h("div", {
      class: "reaction-choices", id: "reaction-choices", role: "group", hidden: true, "data-testid": "reaction-choices",
      onkeydown: (event) => this.onPanelKey(event),
    });
    this.own = h("span", { class: "own-reaction" });
    this.el = h("div", { class: "reactions", "data-testid": "reactions" }, this.toggle, this.own, this.panel);
    this.relabel();
  }

  /** Words in the page's language (again, after a switch). */
  relabel() {
    fill(this.toggle, bubbleIcon(), t("web_react"));
    this.panel.setAttribute("aria-label", t("web_reactions"));
    fill(this.panel, REACTIONS.map((reaction) => h("button", {
      type: "button", class: `reaction-choice${reaction.emoji ? " emoji-choice" : ""}`,
      "data-testid": `react-${reaction.id}`, "data-reaction": reaction.id,
      onclick: () => this.choose(reaction.id),
    }, face(reaction))));
    if (this.model) this.place(this.model);
  }

  setOpen(open, focus = true) {
    this.panel.hidden = !open;
    this.toggle.setAttribute("aria-expanded", String(open));
    if (open && focus) this.panel.querySelector("button").focus();
  }

  choose(id) {
    this.send(id);
    this.setOpen(false);
    this.toggle.focus();
  }

  /** Arrow keys move between the choices, Escape closes them (Tab leaves as usual). */
  onPanelKey(event) {
    const buttons = [...this.panel.querySelectorAll("button")];
    const index = buttons.indexOf(document.activeElement);
    let next = null;
    if (event.key === "ArrowRight" || event.key === "ArrowDown") next = (index + 1) % buttons.length;
    else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = (index - 1 + buttons.length) % buttons.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = buttons.length - 1;
    else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      this.setOpen(false);
      this.toggle.focus();
      return;
    }
    if (next === null) return;
    event.preventDefault();
    event.stopPropagation(); // the table's own arrow keys move through the hand
    buttons[next].focus();
  }

  /** A `reaction` frame of the server: show it beside the sender's seat for a while, and announce it. */
  receive(frame, model) {
    const reaction = BY_ID.get(frame.reaction);
    if (!reaction || typeof frame.seat !== "number") return;
    const before = this.shown.get(frame.seat);
    if (before) clearTimeout(before.timer);
    const timer = setTimeout(() => {
      this.shown.delete(frame.seat);
      if (this.model) this.place(this.model);
    }, SHOWN_MS);
    this.shown.set(frame.seat, { id: reaction.id, timer });
    this.place(model);
    const name = model.me === frame.seat ? t("seat_you") : model.names[frame.seat] ?? "";
    this.announce(t("web_reaction_said", { name, reaction: t(`reaction_${reaction.id}`) }));
  }

  /** Put the reactions shown now beside their seats: the others' chips in `seats`, the reader's own here. */
  place(model, seats = document) {
    this.model = model;
    this.el.hidden = model.me === null || !model.hasGame;
    for (const old of seats.querySelectorAll(".seat .reaction-bubble")) old.remove();
    this.own.replaceChildren();
    for (const [seat, { id }] of this.shown) {
      const bubble = h("span", { class: "reaction-bubble", "data-testid": `reaction-${seat}`, "data-reaction": id }, face(BY_ID.get(id)));
      if (seat === model.me) this.own.append(bubble);
      else {
        const chip = seats.querySelector(`.seat[data-testid="seat-${seat}"]`);
        if (chip) chip.append(bubble);
      }
    }
  }

  close() {
    for (const { timer } of this.shown.values()) clearTimeout(timer);
    this.shown.clear();
  }
}
