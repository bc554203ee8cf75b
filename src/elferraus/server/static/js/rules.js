// The rules in short, in the reader's language (the switch in the header
// changes it; /rules?lang=de opens it in German). The words come from the
// catalogue and agree with docs/rules.md and docs/regeln.md; the variants
// and their options are the server's presets (GET /api/rules).

import { h, fill } from "./dom.js";
import { t, colorName } from "./i18n.js";
import { SYMBOLS, renderBoard, centerEleven } from "./board.js";
import { loadPresets, presetNamed } from "./presets.js";

// The example table of the text: its open rows, and where a card fits next.
const EXAMPLE_ROWS = { R: [8, 13], Y: [11, 13], B: [10, 11] };
const EXAMPLE_SLOTS = { R: [7, 14], Y: [10, 14], G: [11], B: [9, 12] };

/** A preset in one line: its catalogue words, and under `must_play` what that means. */
function variant(preset) {
  if (!preset.must_play) return t(preset.key);
  return `${t(preset.key).split(":")[0]}: ${t("help_must_play").trim()} ${t("web_rules_must_drawn")}`;
}

export class RulesScreen {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.presets = null;
    fill(root, h("p", { class: "loading" }, t("web_loading")));
    loadPresets().then((presets) => {
      this.presets = presets;
      this.render();
    });
  }

  title() {
    return t("web_rules_title");
  }

  relabel() {
    if (this.presets) this.render();
  }

  render() {
    this.ctx.setContext(t("web_rules_link"));
    this.ctx.setConnection("");
    const standard = presetNamed(this.presets, this.presets.default);
    const paragraphs = t("help_rules", { max_draws: standard ? standard.max_draws : "", must_play: "" }).split("\n").filter(Boolean);
    const colors = ["R", "Y", "G", "B"].map((c) => h("li", {}, h("span", { class: `mini c-${c}` }, `${SYMBOLS[c]} ${c}`), " ", colorName(c)));
    fill(this.root, h("article", { class: "rules", "data-testid": "rules-page" },
      h("h1", {}, t("web_rules_title")),
      h("p", { class: "lead" }, paragraphs[0]),
      h("h2", {}, t("web_rules_cards")),
      h("p", {}, t("web_rules_deal")),
      h("ul", { class: "color-list" }, colors),
      h("h2", {}, t("web_rules_table_head")),
      h("p", {}, paragraphs[1] || ""),
      h("p", {}, t("web_rules_opening")),
      h("div", { class: "board-wrap example", "aria-label": t("web_rules_example"), role: "group" },
        renderBoard(EXAMPLE_ROWS, EXAMPLE_SLOTS, "RYGB", "R13")),
      h("p", { class: "muted" }, t("web_rules_table")),
      h("h2", {}, t("web_rules_turn_head")),
      h("p", {}, paragraphs[2] || ""),
      h("p", {}, t("web_rules_after_lay")),
      h("p", {}, paragraphs[3] || ""),
      h("p", {}, t("web_rules_last_draw")),
      h("p", {}, paragraphs[4] || ""),
      h("h2", {}, t("web_rules_end_head")),
      h("p", {}, t("web_rules_win")),
      h("p", {}, paragraphs[5] || ""),
      h("h2", {}, t("web_rules_variants")),
      h("ul", { "data-testid": "variants" }, this.presets.presets.map((preset) => h("li", {}, variant(preset)))),
      h("h2", {}, t("web_rules_keys_head")),
      h("p", {}, t("web_keys")),
      h("p", {}, h("a", { href: "/", class: "button" }, t("web_back_lobby")))));
    this.root.className = "rules-screen";
    // On a narrow screen the example scrolls sideways; start with the 11s in the middle, as the table does.
    centerEleven(this.root.querySelector(".board-wrap.example"));
  }
}
