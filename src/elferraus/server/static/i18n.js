// The words of the page: the project's catalogue, served as JSON by
// GET /api/messages?lang=de|en, cached in localStorage for offline use.

const LANG_KEY = "elferraus-lang";
const CACHE_KEY = "elferraus-messages-";
let catalogue = { lang: "en", messages: {}, colors: {} };

function store(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
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

/** The language to speak: ?lang=, else the remembered choice, else the browser's. */
export function detectLang() {
  const param = new URLSearchParams(location.search).get("lang");
  if (param === "de" || param === "en") return param;
  const saved = recall(LANG_KEY);
  if (saved === "de" || saved === "en") return saved;
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const code of wanted) {
    const lower = String(code).toLowerCase();
    if (lower.startsWith("de")) return "de";
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

export function rememberLang(lang) {
  store(LANG_KEY, lang);
}

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
      store(CACHE_KEY + code, JSON.stringify(data));
    }
  } catch {
    /* offline: try the cache */
  }
  if (!data) {
    try {
      data = JSON.parse(recall(CACHE_KEY + code) || "null");
    } catch {
      data = null;
    }
  }
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
