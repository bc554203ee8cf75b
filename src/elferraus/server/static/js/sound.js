// The table's sound: a soft tap when a card is laid, a brush when one is
// drawn, made with Web Audio (no file to load). Off until the reader turns it
// on with the switch on the table; storage.js remembers the choice.

import { h, icon } from "./dom.js";
import { soundWanted, saveSoundWanted } from "./storage.js";

const VOLUME = 0.5;
let audio = null;
let noise = null;

/** The audio context, made (or woken) only once sound is wanted; null where there is no Web Audio. */
function context() {
  if (!audio) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    audio = new Context();
  }
  // a browser starts it suspended until the reader has touched the page
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

function noiseBuffer(ctx) {
  if (!noise || noise.sampleRate !== ctx.sampleRate) {
    noise = ctx.createBuffer(1, Math.round(ctx.sampleRate * 0.3), ctx.sampleRate);
    const data = noise.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1;
  }
  return noise;
}

/** A gain that rises at once to `peak` and dies away over `length` seconds. */
function envelope(ctx, at, peak, length) {
  const gain = ctx.createGain();
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(peak * VOLUME, at + 0.006);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  gain.connect(ctx.destination);
  return gain;
}

/** A card put down: a short, low knock with a little click. */
function tap(ctx) {
  const at = ctx.currentTime + 0.01;
  const tone = ctx.createOscillator();
  tone.type = "triangle";
  tone.frequency.setValueAtTime(520, at);
  tone.frequency.exponentialRampToValueAtTime(190, at + 0.09);
  tone.connect(envelope(ctx, at, 0.22, 0.12));
  tone.start(at);
  tone.stop(at + 0.14);
  const click = ctx.createBufferSource();
  click.buffer = noiseBuffer(ctx);
  const high = ctx.createBiquadFilter();
  high.type = "highpass";
  high.frequency.value = 2500;
  click.connect(high).connect(envelope(ctx, at, 0.08, 0.04));
  click.start(at, 0, 0.05);
}

/** A card taken from the pile: filtered noise sweeping upwards. */
function brush(ctx) {
  const at = ctx.currentTime + 0.01;
  const source = ctx.createBufferSource();
  source.buffer = noiseBuffer(ctx);
  const band = ctx.createBiquadFilter();
  band.type = "bandpass";
  band.Q.value = 1.2;
  band.frequency.setValueAtTime(700, at);
  band.frequency.exponentialRampToValueAtTime(2600, at + 0.16);
  source.connect(band).connect(envelope(ctx, at, 0.12, 0.18));
  source.start(at, 0, 0.2);
}

const SOUNDS = { lay: tap, draw: brush };

/** What was heard from `previous` to `model`: "lay", "draw" or null (nothing, or a whole resync). */
export function soundFor(previous, model) {
  if (!previous || !previous.hasGame || !model.hasGame || previous.gameId !== model.gameId) return null;
  const fresh = model.log.length - previous.log.length;
  if (fresh <= 0 || fresh > 4) return null;
  const lay = model.lastLay;
  if (lay && (!previous.lastLay || previous.lastLay.card !== lay.card)) return "lay";
  if (model.pile !== null && previous.pile !== null && model.pile < previous.pile) return "draw";
  return null;
}

/** Play the sound of what changed, if the reader wants sound. */
export function playFor(previous, model) {
  const kind = soundWanted() ? soundFor(previous, model) : null;
  const ctx = kind && context();
  // still suspended (no touch of the page yet since it was loaded): stay quiet rather than play late
  if (ctx && ctx.state === "running") SOUNDS[kind](ctx);
}

/** Wake the audio at the reader's first touch of the page, when he turned sound on before. */
function wakeOnTouch() {
  const wake = () => {
    if (soundWanted()) context();
  };
  document.addEventListener("pointerdown", wake, { once: true, capture: true });
  document.addEventListener("keydown", wake, { once: true, capture: true });
}

/** The switch on the table: a checkbox with its label (the words set by `labelSoundSwitch`). */
export function soundSwitch() {
  const box = h("input", {
    type: "checkbox", id: "sound-switch", "data-testid": "sound-switch", checked: soundWanted(),
    onchange: () => {
      saveSoundWanted(box.checked);
      if (box.checked) context();
    },
  });
  const words = h("span", { class: "sound-words" });
  wakeOnTouch();
  return h("label", { class: "sound-switch", for: "sound-switch" }, box, speaker(), words);
}

export function labelSoundSwitch(label, text) {
  label.querySelector(".sound-words").textContent = text;
  label.querySelector("input").checked = soundWanted();
}

function speaker() {
  return icon({ viewBox: "0 0 16 16", width: 16, height: 16 },
    { d: "M1.5 5.5h3L8.5 2v12l-4-3.5h-3z", fill: "currentColor" },
    { d: "M10.8 5.4a3.6 3.6 0 0 1 0 5.2M12.6 3.4a6.3 6.3 0 0 1 0 9.2", fill: "none", stroke: "currentColor",
      "stroke-width": "1.4", "stroke-linecap": "round" });
}
