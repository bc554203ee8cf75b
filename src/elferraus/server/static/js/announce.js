// What a screen reader hears at the table: one polite announcement per
// change of the game (a move, computers' included, with the turn that comes
// to the reader, a move made for him, the end of the round), in the page's
// language, from the same messages the page shows. The table's other lines
// are not live, so nothing is said twice and nothing floods.

import { h } from "./dom.js";
import { say } from "./i18n.js";
import { isOver } from "./state.js";

/** The words for what changed from `previous` to `model` (two models of state.js), or "" for nothing new. */
export function announcement(previous, model) {
  if (!model || !model.hasGame) return "";
  const parts = [];
  const sameGame = previous && previous.hasGame && previous.gameId === model.gameId && model.log.length >= previous.log.length;
  const from = sameGame ? previous.log.length : previous && previous.hasGame ? 0 : model.log.length;
  for (const line of model.log.slice(from)) parts.push(say(line, model.names, model.me));
  const madeFor = say(model.madeFor, model.names, model.me);
  if (madeFor && (!sameGame || madeFor !== say(previous.madeFor, previous.names, previous.me))) parts.push(madeFor);
  const prompt = myChoice(model) ? say(model.prompt, model.names, model.me) : "";
  const before = sameGame && myChoice(previous) ? say(previous.prompt, previous.names, previous.me) : "";
  if (prompt && (parts.length || prompt !== before)) parts.push(prompt);
  if (isOver(model) && !(previous && isOver(previous))) parts.push(say(model.words, model.names, model.me));
  return parts.filter(Boolean).reduce((text, part) => (text ? `${text}${/[.!?]$/.test(text) ? " " : ". "}${part}` : part), "");
}

function myChoice(m) {
  return Boolean(m && m.me !== null && m.turn === m.me && !isOver(m) && m.legal.length && m.prompt);
}

export class Announcer {
  constructor() {
    this.el = h("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true", "data-testid": "announcer" });
  }

  /** Announce what changed from the model drawn before to this one. */
  follow(previous, model) {
    this.say(announcement(previous, model));
  }

  /** Announce `text` (a new element each time, so that the same words twice are heard twice). */
  say(text) {
    if (!text) return;
    this.el.replaceChildren(h("p", {}, text));
  }

  /** The words of the newest announcement (for the tests and for a person asking again). */
  get text() {
    return this.el.textContent;
  }
}
