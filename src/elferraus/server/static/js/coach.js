// The coach of a first game: each rule told once, at the moment it matters
// (the red 11 starts, what fits, more cards in one turn, holding back and
// why it pays, when one must draw, a drawn card, the empty pile), and on
// asking, the hint engine's move and why (the server's `hint` frame; only for
// a person alone with computers). The page decides nothing of the game here:
// the moment comes in the reader's VIEW (`moment`), the hint from the server.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { coachWanted, markGamePlayed, saveCoachWanted } from "./storage.js";

/** The rule to tell now (a catalogue key after `coach_`), or null: the server's `moment` of the reader's view
 * (`elferraus.table.coach`), each told once a game (`seen`); a card that fits while drawing is allowed is first
 * told as what fits, the next time as holding back. */
export function tipOf(moment, seen) {
  if (!moment) return null;
  const tip = moment === "may_hold" ? (seen.has("fits") ? "hold" : "fits") : moment;
  return seen.has(tip) ? null : tip;
}

/** Whether the reader plays alone against computers (the only table where the server gives hints). */
export function hintsAllowed(model) {
  return model.me !== null && model.seats.every((seat) => seat.seat === model.me || seat.kind === "computer");
}

export class Coach {
  /** `send(frame)`: sends a frame on the room's connection (true if it went); `changed()`: the hint's move
   * changed (the table marks it in the hand). */
  constructor(send, changed = () => {}) {
    this.send = send;
    this.changed = changed;
    this.on = coachWanted();
    this.seen = new Set();
    this.gameId = undefined;
    this.tip = null;
    this.hint = null;
    this.asked = null;
    this.model = null;
    this.position = null;
    this.els = {
      text: h("p", { class: "coach-text", "data-testid": "coach-text", "aria-live": "polite" }),
      hintText: h("p", { class: "coach-hint", "data-testid": "coach-hint", "aria-live": "polite", hidden: true }),
      ok: h("button", { type: "button", class: "quiet", "data-testid": "coach-ok" }),
      ask: h("button", { type: "button", "data-testid": "coach-ask" }),
      off: h("button", { type: "button", class: "link", "data-testid": "coach-off" }),
    };
    this.els.ok.addEventListener("click", () => this.dismiss());
    this.els.ask.addEventListener("click", () => this.ask());
    this.els.off.addEventListener("click", () => this.toggle(false));
    /** Placed by the table with its other switches: turns the coach on again. */
    this.switchOn = h("button", { type: "button", class: "coach-on", "data-testid": "coach-on", hidden: true });
    this.switchOn.addEventListener("click", () => this.toggle(true));
    this.element = h(
      "section",
      { class: "coach", "data-testid": "coach", "aria-label": t("coach_title"), hidden: true },
      this.els.text,
      this.els.hintText,
      h("div", { class: "coach-actions" }, this.els.ok, this.els.ask, this.els.off),
    );
  }

  /** Switch the coach on or off (remembered for the next games). */
  toggle(on) {
    this.on = on;
    saveCoachWanted(on);
    if (this.model) this.update(this.model);
  }

  /** Draw the coach for the newest state. */
  update(model) {
    this.model = model;
    if (model.gameId !== this.gameId) {
      this.gameId = model.gameId;
      this.seen = new Set();
      this.tip = null;
      this.position = null;
    }
    if (model.result) {
      // The game is over: a rule of its last turns (the empty pile) would be stale under the result.
      markGamePlayed();
      this.tip = null;
      this.hint = null;
    }
    if (this.hint && this.hint.seq !== model.seq) this.hint = null;
    if (this.asked !== null && this.asked !== model.seq) this.asked = null;
    // A rule is told when the position changes, not on every state: a state of the same position (somebody
    // came or went) must not tell the next rule at once ("fits", then "hold" on the same turn).
    const position = `${model.turn}:${model.log.length}`;
    const fresh = position !== this.position;
    this.position = position;
    const tip = this.on && fresh ? tipOf(model.moment, this.seen) : null;
    if (tip) {
      this.tip = tip;
      this.seen.add(tip);
    }
    this.render();
  }

  /** The server's answer to our `hint`. */
  hinted(frame) {
    if (!this.model || frame.seq !== this.model.seq) return;
    this.hint = frame;
    this.asked = null;
    this.render();
  }

  /** A refusal the server sent (its code and words): the coach's to show if it answers our `hint`. */
  refused(code, message) {
    const hintCodes = ["no_hints", "no_hint_now", "stale", "not_your_turn", "wrong_status", "not_a_player"];
    if (this.asked === null || !hintCodes.includes(code)) return false;
    this.asked = null;
    this.hint = { seq: this.model.seq, text: message, move: null };
    this.render();
    return true;
  }

  dismiss() {
    this.tip = null;
    this.hint = null;
    this.render();
  }

  ask() {
    if (!this.model || this.asked !== null) return;
    if (this.send({ type: "hint", seq: this.model.seq })) this.asked = this.model.seq;
    this.render();
  }

  /** The card the hint suggests (its `data-card`), to be marked in the hand, or null. */
  suggested() {
    return this.hint && this.hint.move && this.hint.move !== "draw" && this.hint.move !== "pass" ? this.hint.move : null;
  }

  render() {
    this.changed();
    const m = this.model;
    const e = this.els;
    this.switchOn.hidden = this.on || m === null || m.me === null;
    fill(this.switchOn, t("coach_turn_on"));
    const mine = m !== null && m.me !== null && m.turn === m.me && m.legal.length > 1;
    const canAsk = this.on && mine && hintsAllowed(m);
    const shown = this.on && (this.tip !== null || this.hint !== null || canAsk);
    this.element.hidden = !shown;
    if (!shown) return;
    e.text.hidden = this.tip === null;
    if (this.tip !== null) fill(e.text, t(`coach_${this.tip}`, { draws: (m.rules && m.rules.max_draws) || 3 }));
    e.hintText.hidden = this.hint === null;
    if (this.hint !== null) fill(e.hintText, this.hint.text);
    if (this.hint !== null && this.hint.move) e.hintText.dataset.move = this.hint.move;
    else delete e.hintText.dataset.move;
    e.ok.hidden = this.tip === null && this.hint === null;
    fill(e.ok, t("coach_ok"));
    e.ask.hidden = !canAsk;
    e.ask.disabled = this.asked !== null;
    fill(e.ask, this.asked !== null ? t("coach_asking") : t("coach_ask"));
    fill(e.off, t("coach_turn_off"));
  }
}
