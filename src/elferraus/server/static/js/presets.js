// The rules presets a room may be played with, as the server lists them
// (GET /api/rules): each one's fields and its catalogue key. Asked once.

import { api } from "./api.js";

let asked = null;

/** {default, presets: [{name, key, colors, max_draws, must_play, after_draw}]}; no presets when offline. */
export function loadPresets() {
  asked = asked || api("/api/rules").catch(() => {
    asked = null;
    return { default: null, presets: [] };
  });
  return asked;
}

/** The preset called `name` in `list`, or null. */
export function presetNamed(list, name) {
  return (list && list.presets.find((preset) => preset.name === name)) || null;
}
