// The WebSocket of a room (/ws/CODE): hello, then `state` frames (and others'
// reactions) in and moves (and reactions) out; reconnects with backoff when the line or the server goes, and
// at once when the page becomes visible again or the browser goes online.

import { lang } from "./i18n.js";

/** The WebSocket to /ws/CODE: hello, state frames, moves; reconnects with backoff. */
export class Connection {
  constructor(code) {
    this.code = code;
    this.ws = null;
    this.token = null;
    this.attempt = 0;
    this.timer = 0;
    this.pinger = 0;
    this.closed = false;
    this.handlers = { state() {}, error() {}, status() {}, reaction() {}, hint() {} };
    this.wake = () => {
      if (!this.closed && (!this.ws || this.ws.readyState > 1) && document.visibilityState === "visible") this.open(true);
    };
    document.addEventListener("visibilitychange", this.wake);
    window.addEventListener("online", this.wake);
  }

  on(handlers) {
    Object.assign(this.handlers, handlers);
  }

  connect(token) {
    this.token = token || null;
    this.closed = false;
    this.attempt = 0;
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      old.onclose = null;
      old.close(1000);
    }
    this.open(false);
  }

  open(now) {
    clearTimeout(this.timer);
    if (this.ws && this.ws.readyState <= 1) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/ws/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    this.handlers.status(this.attempt && !now ? "reconnecting" : "connecting");
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token, lang: lang() }));
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 25000);
    };
    ws.onmessage = (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!data || typeof data !== "object") return;
      if (data.type === "state") {
        this.attempt = 0;
        this.handlers.status("open");
        this.handlers.state(data);
      } else if (data.type === "error") {
        this.handlers.error(data);
      } else if (data.type === "reaction") {
        this.handlers.reaction(data);
      } else if (data.type === "hint") {
        this.handlers.hint(data);
      }
    };
    ws.onclose = (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      this.attempt += 1;
      const delay = Math.min(10000, 500 * 2 ** Math.min(this.attempt - 1, 5)) * (0.75 + Math.random() * 0.5);
      this.handlers.status(event.code === 1008 ? "refused" : "reconnecting");
      this.timer = setTimeout(() => this.open(false), delay);
    };
  }

  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** A new hello in another language: the server speaks in it from now on. */
  relabel() {
    if (this.ws) this.connect(this.token);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    document.removeEventListener("visibilitychange", this.wake);
    window.removeEventListener("online", this.wake);
    if (this.ws) this.ws.close(1000);
  }
}
