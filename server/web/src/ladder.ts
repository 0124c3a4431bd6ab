// The rated ladder on the home page: every pool with how many wait (ListLadders, polled while
// the panel is shown), a "Join" button per pool for the signed-in account; while it waits, a
// line with its rating, how many wait, the time waited and the expected wait, and "Leave"
// (which closes the JoinLadder stream: the server takes it out of the queue). Matched, the page
// goes to the game (`#/play/GAME`, where the session plays the account's seat, as for an
// accepted challenge). The wait is kept across the page's views: it goes on until matched or left.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import type { LadderPool, LadderQueued } from "./gen/gin/v1/ladder_pb.js";
import { POOLS, leaderboardHref, poolLabel } from "./ratings.js";

/** The account's wait, if it waits. */
interface Wait {
  pool: string;
  abort: AbortController;
  /** The server's last word, and when it came (the time waited goes on from there). */
  queued?: LadderQueued;
  at: number;
}

let wait: Wait | undefined;
/** The panel drawn now (redrawn as the wait changes), and a problem to show in it. */
let panel: { el: HTMLElement; redraw(): void } | undefined;
let problem = "";
let go: (hash: string) => void = (hash) => { location.hash = hash; };

/** "1 min 5 s", "12 s". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** Queues the signed-in account in `pool`'s ladder. */
async function join(pool: string): Promise<void> {
  if (wait) return;
  const abort = new AbortController();
  const mine: Wait = { pool, abort, at: Date.now() };
  wait = mine;
  problem = "";
  panel?.redraw();
  try {
    for await (const r of api.ladder.joinLadder({ pool }, { signal: abort.signal })) {
      if (r.event.case === "queued") {
        mine.queued = r.event.value;
        mine.at = Date.now();
        panel?.redraw();
      } else if (r.event.case === "matched") {
        const m = r.event.value;
        wait = undefined;
        abort.abort();
        panel?.redraw();
        const to = `#/play/${m.gameId}`;
        if (location.hash !== to) go(to);
        return;
      }
    }
    if (wait === mine) problem = "the ladder closed the queue: join again";
  } catch (e) {
    if (!abort.signal.aborted) problem = api.explain(e);
  } finally {
    if (wait === mine) wait = undefined;
    panel?.redraw();
  }
}

/** Leaves the queue (closes the stream). */
export function leaveLadder(): void {
  const w = wait;
  if (!w) return;
  wait = undefined;
  w.abort.abort();
  panel?.redraw();
}

/** The ladder panel, drawn into `el` (the home page's). */
export function renderLadder(el: HTMLElement, goTo: (hash: string) => void): void {
  go = goTo;
  let pools: LadderPool[] | undefined;
  let listProblem = "";
  const list = h("div", { id: "ladder-pools" });
  const line = h("div", { id: "ladder-wait", "aria-live": "polite" });
  const message = h("p", { class: "message", role: "alert", id: "ladder-message" });
  fill(el,
    h("h2", { id: "ladder-title" }, "Ladder"),
    h("p", { class: "hint" }, "Rated games around the clock: join a pool's queue and the server seats you with players of a rating near yours."),
    line, list, message);

  const drawWait = () => {
    const w = wait;
    if (!w) {
      fill(line);
      return;
    }
    const q = w.queued;
    if (!q) {
      fill(line, h("p", { id: "ladder-waiting" }, `Joining ${poolLabel(w.pool)}… `,
        h("button", { type: "button", id: "ladder-leave", onclick: leaveLadder }, "Leave")));
      return;
    }
    const waited = Number(q.waitedMs) + (Date.now() - w.at);
    const expected = q.expectedWaitMs === undefined ? "not known yet" : duration(Number(q.expectedWaitMs));
    fill(line, h("p", { id: "ladder-waiting", "data-pool": q.pool },
      `Waiting in ${poolLabel(q.pool)} · your rating `,
      h("strong", { class: "rating" }, `${Math.round(q.rating)}`), " ",
      h("span", { class: "deviation" }, `±${Math.round(q.deviation)}`),
      q.provisional ? h("span", { class: "tag provisional" }, "provisional") : "",
      " · ", h("span", { class: "waiting" }, `${q.waiting}`), ` waiting · waited `,
      h("span", { class: "waited" }, duration(waited)), " · expected wait ",
      h("span", { class: "expected" }, expected), " ",
      h("button", { type: "button", id: "ladder-leave", onclick: leaveLadder }, "Leave")));
  };
  const drawList = () => {
    if (!pools) {
      fill(list, listProblem || "loading the ladders…");
      return;
    }
    const by = new Map(pools.map((p) => [p.pool, p]));
    // The pools in the leaderboards' order, then any other the server has.
    const ids = [...POOLS.map((p) => p.id).filter((id) => by.has(id)), ...pools.map((p) => p.pool).filter((id) => !POOLS.some((p) => p.id === id))];
    fill(list, h("table", { class: "games ladder", "aria-label": "ladder pools" },
      h("thead", {}, h("tr", {}, ["pool", "waiting", "expected wait", ""].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ids.map((id) => {
        const p = by.get(id) as LadderPool;
        return h("tr", { class: "ladder-pool", "data-pool": id },
          h("td", {}, h("a", { href: leaderboardHref(id) }, poolLabel(id))),
          h("td", { class: "waiting" }, `${p.waiting}`),
          h("td", { class: "expected" }, p.expectedWaitMs === undefined ? "" : duration(Number(p.expectedWaitMs))),
          h("td", {}, api.me
            ? h("button", { type: "button", class: "join", disabled: !!wait, onclick: () => void join(id) }, "Join")
            : ""));
      }))),
    !api.me && h("p", { id: "ladder-guest" }, h("a", { href: "#/signin" }, "Sign in to join"), "."));
  };
  const redraw = () => {
    drawWait();
    drawList();
    fill(message, problem);
  };
  const me = { el, redraw };
  panel = me;
  redraw();

  // While the panel is shown: the counts every 3 s, the time waited every second.
  const load = async () => {
    try {
      pools = (await api.ladder.listLadders({})).pools;
      listProblem = "";
    } catch (e) {
      listProblem = api.explain(e);
    }
    if (panel === me && el.isConnected) drawList();
  };
  void load();
  let ticks = 0;
  const timer = setInterval(() => {
    if (panel !== me || !el.isConnected) {
      clearInterval(timer);
      if (panel === me) panel = undefined;
      return;
    }
    if (wait?.queued) drawWait();
    if (++ticks % 3 === 0) void load();
  }, 1000);
}
