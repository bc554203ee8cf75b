// What the page remembers in localStorage: each room's token and seat, the
// language, the cached catalogue. Private mode remembers nothing, and the
// page still works (the link in the address bar carries the token).

const LANG_KEY = "elferraus-lang";
const CACHE_KEY = "elferraus-messages-";

function store(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* private mode: nothing is remembered */
  }
}

function recall(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** The secret token of this browser's seat in room `code`, or null. */
export function tokenFor(code) {
  return recall(`elferraus:${code}`);
}

/** The seat that token holds, when known. */
export function seatFor(code) {
  const seat = recall(`elferraus-seat:${code}`);
  return seat === null ? null : Number(seat);
}

/** Remember (or, with a null token, forget) this browser's seat in room `code`. */
export function remember(code, token, seat) {
  store(`elferraus:${code}`, token || null);
  store(`elferraus-seat:${code}`, token && seat !== null && seat !== undefined ? String(seat) : null);
}

/** The codes of the rooms this browser holds a seat in. */
export function knownRooms() {
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

const NAME_KEY = "elferraus-name";

/** The name the reader last played under here ("" when none). */
export function savedName() {
  return recall(NAME_KEY) || "";
}

export function saveName(name) {
  store(NAME_KEY, name || null);
}

export function savedLang() {
  return recall(LANG_KEY);
}

export function saveLang(code) {
  store(LANG_KEY, code);
}

/** The catalogue of `code` as last fetched (for use offline), or null. */
export function cachedMessages(code) {
  try {
    return JSON.parse(recall(CACHE_KEY + code) || "null");
  } catch {
    return null;
  }
}

export function cacheMessages(code, data) {
  store(CACHE_KEY + code, JSON.stringify(data));
}

const SOUND_KEY = "elferraus-sound";

/** Whether the reader turned the table's sound on (it is off until he does). */
export function soundWanted() {
  return recall(SOUND_KEY) === "on";
}

export function saveSoundWanted(on) {
  store(SOUND_KEY, on ? "on" : null);
}

const COACH_KEY = "elferraus-coach";
const PLAYED_KEY = "elferraus-played";

/** Whether the coach speaks at the table: as the reader last chose, else until his first game is over. */
export function coachWanted() {
  const chosen = recall(COACH_KEY);
  if (chosen === "on" || chosen === "off") return chosen === "on";
  return recall(PLAYED_KEY) === null;
}

export function saveCoachWanted(on) {
  store(COACH_KEY, on ? "on" : "off");
}

/** The reader has played a game to its end (the coach then waits to be asked for). */
export function markGamePlayed() {
  store(PLAYED_KEY, "1");
}
