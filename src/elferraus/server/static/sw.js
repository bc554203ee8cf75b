// The service worker: keeps the page's own files for the next visit and for a
// bad line. The server sends it from /sw.js (the whole site is its scope) with
// BUILD filled in: a version that changes with any of the files, and their
// list (server/web/worker.py). Served as it is here, BUILD is null and it keeps nothing.
//
// - The page's files (/static/...) come from this version's cache, fetched
//   once at install; a new version of the files is a new worker with a new
//   cache, and the old caches are deleted when it takes over.
// - The page itself (/, /r/CODE, /replay/N, /rules: one document) is asked
//   of the network first, so an update arrives at once; the cached copy is
//   shown only when the network fails.
// - Nothing else is touched: the JSON API (/api/...), the WebSocket and every
//   other address go to the server as if there were no worker.

const BUILD = null;
const PREFIX = "elferraus-";
const CACHE = BUILD ? `${PREFIX}${BUILD.version}` : null;
const PAGE = "/";
const PAGES = /^\/(?:r\/[A-Za-z0-9]+\/?|replay\/[^/]+\/?|rules\/?)?$/;

self.addEventListener("install", (event) => {
  if (!CACHE) return;
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // revalidated, not taken blindly from the HTTP cache: the files of exactly this version
    await cache.addAll([PAGE, ...BUILD.files].map((url) => new Request(url, { cache: "no-cache" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (!CACHE || request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && PAGES.test(url.pathname)) event.respondWith(pageFirstFromNetwork(request));
  else if (url.pathname.startsWith("/static/")) event.respondWith(fileFromCache(request));
});

async function pageFirstFromNetwork(request) {
  const cache = await caches.open(CACHE);
  try {
    const answer = await fetch(request);
    if (answer.ok && answer.type === "basic") await cache.put(PAGE, answer.clone());
    return answer;
  } catch (error) {
    const kept = await cache.match(PAGE);
    if (kept) return kept;
    throw error;
  }
}

async function fileFromCache(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const answer = await fetch(request);
  if (answer.ok && answer.type === "basic") await cache.put(request, answer.clone());
  return answer;
}
