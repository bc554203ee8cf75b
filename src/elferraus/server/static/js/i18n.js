// The words of the page: the project's catalogue, served as JSON by
// GET /api/messages?lang=de|en (cached for offline use), and the server's
// messages {key, params, you?} filled in with the names the page shows
// (docs/web-protocol.md, "Messages"). The page words; the server decides.

import { savedLang, saveLang, cachedMessages, cacheMessages } from "./storage.js";

let catalogue = { lang: "en", messages: {}, colors: {} };

/** The language to speak: ?lang=, else the remembered choice, else the browser's. */
export function detectLang() {
  const param = new URLSearchParams(location.search).get("lang");
  if (param === "de" || param === "en") return param;
  const saved = savedLang();
  if (saved === "de" || saved === "en") return saved;
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const code of wanted) {
    const lower = String(code).toLowerCase();
    if (lower.startsWith("de")) return "de";
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

export const rememberLang = saveLang;

export function lang() {
  return catalogue.lang;
}

/** Load the catalogue for `code`; falls back to the cached copy when offline. */
export async function loadMessages(code) {
  let data = null;
  try {
    const answer = await fetch(`/api/messages?lang=${code}`, { headers: { Accept: "application/json" } });
    if (answer.ok) {
      data = await answer.json();
      cacheMessages(code, data);
    }
  } catch {
    /* offline: try the cache */
  }
  data = data || cachedMessages(code);
  catalogue = { lang: code, messages: (data && data.messages) || {}, colors: (data && data.colors) || {} };
  document.documentElement.lang = code;
  return Boolean(data);
}

/** The message `key` with its {placeholders} filled in. */
export function t(key, params = {}) {
  const text = catalogue.messages[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export function has(key) {
  return key in catalogue.messages;
}

/** "red" / "Rot". */
export function colorName(letter) {
  return catalogue.colors[letter] || letter;
}

/**
 * A message of the server in words. `names`: every seat's name as shown;
 * `me`: the reader's seat (null: watching). A parameter `seat` is read as
 * that seat's name, `seats` as their names; the reader at `seat` reads the
 * message's `you` key, when it has one.
 */
export function say(message, names, me = null) {
  if (!message) return "";
  const params = { ...(message.params || {}) };
  const seat = params.seat;
  if (typeof seat === "number") params.name = names[seat] ?? t("setup_seat", { n: seat + 1 });
  if (Array.isArray(params.seats)) params.names = params.seats.map((s) => names[s]).join(", ");
  return t(message.you && me !== null && seat === me ? message.you : message.key, params);
}

/** A seat's name as the page shows it: the name taken, else "Computer 3" / "Seat 3". */
export function seatName(seat, index) {
  if (seat && seat.name) return seat.name;
  if (seat && seat.kind === "computer") return t("name_computer", { n: index + 1 });
  return t("setup_seat", { n: index + 1 });
}

/** "easy" -> "leicht". */
export function levelWord(level) {
  return level && has(`level_${level}`) ? t(`level_${level}`) : level || "";
}
