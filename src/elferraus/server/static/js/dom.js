// A tiny element builder: h("button", {class: "x", onclick: f}, "text", child).

import { t } from "./i18n.js";

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key === "value" || key === "checked" || key === "selected" || key === "disabled") el[key] = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const SVG = "http://www.w3.org/2000/svg";

/** A small icon drawn in SVG for decoration (hidden from screen readers): `attrs` for the <svg>, one attribute
 * object for each of its paths. The page's own drawing, the same on every system, unlike an emoji. */
export function icon(attrs, ...paths) {
  const svg = document.createElementNS(SVG, "svg");
  for (const [key, value] of Object.entries({ ...attrs, "aria-hidden": "true", focusable: "false" })) {
    svg.setAttribute(key, String(value));
  }
  for (const path of paths) {
    const el = document.createElementNS(SVG, "path");
    for (const [key, value] of Object.entries(path)) el.setAttribute(key, String(value));
    svg.append(el);
  }
  return svg;
}

/** Replace all children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Put `el` in the Tab order exactly while it scrolls: a region that scrolls must be reachable to be
 * scrolled with the keys (and one that does not is no stop on the way). */
export function keyboardScrollable(el, scrolls = scrollsNow(el)) {
  if (scrolls) el.setAttribute("tabindex", "0");
  else el.removeAttribute("tabindex");
}

/** Whether `el` scrolls (its content is wider or taller than it). */
export function scrollsNow(el) {
  return el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
}

/** The viewport's width in CSS pixels, asked of media queries: unlike window.innerWidth (on a phone's
 * viewport), that forces no layout. */
export function viewportWidth() {
  let low = 0;
  let high = 8192;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (window.matchMedia(`(min-width: ${mid}px)`).matches) low = mid;
    else high = mid;
  }
  return low;
}

/** Run `work` once the browser has laid out the page (before it paints): reading sizes there forces no layout.
 * `el`: an element on the page (being observed is what brings the call). */
export function afterLayout(el, work) {
  if (typeof ResizeObserver !== "function") {
    requestAnimationFrame(work);
    return;
  }
  const observer = new ResizeObserver(() => {
    observer.disconnect();
    work();
  });
  observer.observe(el);
}

export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** A button that copies `text` (else selects it in the input beside it) and says whether it did. */
export function copyButton(text, testid) {
  const button = h("button", { type: "button", class: "copy", "data-testid": testid, onclick: async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      const input = button.parentElement.querySelector("input");
      if (input) {
        input.select();
        ok = document.execCommand && document.execCommand("copy");
      }
    }
    button.textContent = ok ? t("web_copied") : t("web_copy_failed");
    setTimeout(() => { button.textContent = t("web_copy"); }, 2000);
  } }, t("web_copy"));
  return button;
}
