// The end of a round: who won, the standings (the winner first, the cards left
// in each hand, their penalty points and a match's totals, all counted by the
// server), the match table, and what comes next. The winner's celebration is
// the table's (table.js), drawn once when the round ends.

import { h } from "./dom.js";
import { t, say } from "./i18n.js";
import { miniCards } from "./board.js";

export function renderResult(m, actions) {
  const result = m.result || {};
  const winner = result.winner ?? m.winner;
  const round = m.room.round || (m.room.scores ? m.room.scores.length : 1);
  const penalties = result.penalties || [];
  const hands = result.hands || [];
  // a single game is over; a round of a match is one of several (as the terminal game says it)
  const single = (m.room.rounds || 1) === 1;
  const title = single ? t("result_title_single") : t("result_title", { round });
  const parts = [h("h2", { id: "result-head" }, title)];
  parts.push(h("p", { class: "winner-line", "data-testid": "winner" }, say(m.words, m.names, m.me)));
  // the standings: the winner first, then by this round's penalty points as the server counted them (ties share
  // a place, in seat order); a match adds each player's total
  const rounds = m.room.rounds || 1;
  const scores = m.room.scores || [];
  const totals = m.room.totals || [];
  const isMatch = rounds > 1 || scores.length > 1;
  const points = (i) => (penalties[i] !== undefined ? penalties[i] : Infinity);
  const order = Array.from({ length: m.players }, (_, i) => i)
    .sort((a, b) => (b === winner) - (a === winner) || points(a) - points(b) || a - b);
  const body = [];
  order.forEach((i, k) => {
    const tied = k > 0 && i !== winner && order[k - 1] !== winner && points(order[k - 1]) === points(i);
    const place = tied ? body[k - 1].dataset.place : String(k + 1);
    const cards = hands[i] || (i === m.me && m.hand ? m.hand : null);
    body.push(h("tr", { class: i === winner ? "winner" : "", "data-testid": `result-seat-${i}`, "data-place": place },
      h("td", { class: "place" }, `${place}.`),
      h("th", { scope: "row" }, i === winner ? h("span", { class: "crown", "aria-hidden": "true" }, "★ ") : null, m.names[i]),
      h("td", {}, cards ? miniCards(cards) : "–"),
      h("td", { class: "points" }, penalties[i] !== undefined ? String(penalties[i]) : "–"),
      isMatch ? h("td", { class: "points" }, totals[i] !== undefined ? String(totals[i]) : "–") : null));
  });
  parts.push(h("table", { class: "result-table", "data-testid": "standings" },
    h("caption", { class: "sr-only" }, t("web_standings")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "place" }, h("span", { class: "place-word" }, t("web_place"))), h("th", { scope: "col" }, t("result_player")),
      h("th", { scope: "col" }, t("result_left")), h("th", { scope: "col", class: "num" }, t("penalties")),
      isMatch ? h("th", { scope: "col", class: "num" }, t("result_total")) : null)),
    h("tbody", {}, body)));
  if (isMatch) {
    const head = [h("th", { scope: "col" }, t("result_player"))];
    scores.forEach((_, r) => head.push(h("th", { scope: "col", class: "num" }, t("round_short", { round: r + 1 }))));
    head.push(h("th", { scope: "col", class: "num" }, t("result_total")));
    const rows = [];
    for (let i = 0; i < m.players; i++) {
      rows.push(h("tr", {}, h("th", { scope: "row" }, m.names[i]),
        scores.map((score) => h("td", {}, String(score[i] ?? ""))),
        h("td", { class: "points" }, String(totals[i] ?? ""))));
    }
    parts.push(h("h3", {}, m.status === "match_over" ? t("web_match_final") : t("match_table", { round: scores.length })),
      h("table", { class: "match-table", "data-testid": "match-table" }, h("thead", {}, h("tr", {}, head)), h("tbody", {}, rows)));
    if (m.status === "match_over" && result.match) {
      parts.push(h("p", { class: "winner-line", "data-testid": "match-winner" }, say(result.match, m.names, m.me)));
    }
  }
  const buttons = [];
  const isHost = m.me !== null && m.me === m.host;
  if (m.status === "round_over") {
    if (isHost) buttons.push(h("button", { class: "primary", "data-testid": "next-round", onclick: () => actions.next() }, t("button_next_round")));
    else parts.push(h("p", { class: "muted" }, t("web_wait_next", { name: m.names[m.host] })));
  } else if (m.status === "match_over") {
    if (isHost) buttons.push(h("button", { class: "primary", "data-testid": "rematch", onclick: () => actions.rematch() }, t("web_rematch")));
    else parts.push(h("p", { class: "muted" }, t("web_wait_rematch", { name: m.names[m.host] })));
  }
  if (m.gameId !== null && m.gameId !== undefined) {
    const id = encodeURIComponent(m.gameId);
    buttons.push(h("a", { class: "button", href: `/replay/${id}`, "data-testid": "replay-link" }, t("web_replay")));
    buttons.push(h("a", { class: "button", href: `/api/games/${id}/record`, download: `elferraus-${m.gameId}.json`, "data-testid": "record-link" }, t("web_download")));
  }
  if (buttons.length) parts.push(h("div", { class: "result-buttons" }, buttons));
  return parts;
}
