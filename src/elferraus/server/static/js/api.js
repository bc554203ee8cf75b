// The JSON API of the server (docs/web-protocol.md), asked in the page's language.

import { t, lang } from "./i18n.js";

/**
 * GET `path` (or POST `body` as JSON) and return the JSON answer. A refusal
 * throws an Error with the server's own words, else `fallback` (or the
 * status); a failed connection throws the "network" message.
 */
export async function api(path, body, fallback) {
  let answer;
  try {
    // The server words its refusals in the page's language.
    answer = await fetch(`${path}${path.includes("?") ? "&" : "?"}lang=${lang()}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Error(t("web_error_network"));
  }
  let data = null;
  try {
    data = await answer.json();
  } catch {
    data = null;
  }
  if (!answer.ok) throw new Error((data && data.message) || fallback || t("web_error_status", { status: answer.status }));
  return data;
}
