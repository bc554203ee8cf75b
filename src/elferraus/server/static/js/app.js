// Elfer raus! in the browser: one page for every route (router.js). This
// starts it: the words in the reader's language, the frame around every
// screen (title, context, connection state, rules link, language switch),
// and the keys, which go to the screen shown.

import { h, fill } from "./dom.js";
import { detectLang, loadMessages, rememberLang, t, lang } from "./i18n.js";
import { route } from "./router.js";

const chrome = {};
let current = null; // the screen shown: {title(), relabel(), onKey?(event)}

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
  chrome.title.textContent = t("app_title");
  chrome.rules.textContent = t("web_rules_link");
  chrome.lang.textContent = t(`language_${other}`);
  chrome.lang.setAttribute("lang", other);
  chrome.lang.setAttribute("aria-label", `${t("setup_language")}: ${t(`language_${other}`)}`);
  document.title = current && current.title ? `${current.title()} · ${t("app_title")}` : t("app_title");
}

function setContext(text) {
  chrome.context.textContent = text || "";
}

/** The connection's badge: `text` short (one line on a phone), `whole` the same in full (its title). */
function setConnection(text, whole = "") {
  chrome.connection.textContent = text || "";
  chrome.connection.hidden = !text;
  if (whole) chrome.connection.title = whole;
  else chrome.connection.removeAttribute("title");
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

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = event.target && event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  if (current && current.onKey) current.onKey(event);
});

async function main() {
  await loadMessages(detectLang());
  buildChrome();
  try {
    current = await route(chrome.main, { setContext, setConnection, switchLang });
    labelChrome();
  } catch (error) {
    fill(chrome.main, h("p", { class: "error", role: "alert" }, String(error && error.message ? error.message : error)));
  }
}

main();

// The service worker (/sw.js) keeps the page's files for the next visit; registered once the page is up, so
// that it never competes with the page's own first load. Without it (an old browser, plain HTTP) all works.
if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => navigator.serviceWorker.register("/sw.js").catch(() => {}));
}
