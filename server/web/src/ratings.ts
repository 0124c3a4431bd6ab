// Ratings on the page: a pool's leaderboard (#/leaderboard/POOL: a pool picker, the lines
// paged by GetLeaderboard, and the signed-in account's own line, marked provisional while it
// is kept off the board), and an account's ratings on its profile (GetPlayerRatings, with a
// small chart per pool of its rating after each rated game, from GetRatingHistory).

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import type { PoolRating } from "./gen/gin/v1/rating_pb.js";
import { AccountKind } from "./gen/gin/v1/types_pb.js";

/** Every pool the server rates, in the picker's order. */
export const POOLS: { id: string; label: string }[] = [
  { id: "gin/standard", label: "Gin, two players (standard)" },
  { id: "gin/oklahoma", label: "Gin, two players, Oklahoma" },
  { id: "gin/classic", label: "Gin, two players, classic" },
  { id: "gin/american", label: "Gin, two players, American" },
  { id: "three-player", label: "Gin, three players" },
  { id: "teams", label: "Gin, four in two teams" },
  ...[3, 4, 5, 6].map((n) => ({ id: `gin-7/${n}`, label: `Gin with 7 cards, ${n} players` })),
  ...[2, 3, 4, 5, 6].map((n) => ({ id: `rummy/${n}`, label: `Rummy, ${n} players` })),
];

/** A pool's name for people. */
export function poolLabel(id: string): string {
  return POOLS.find((p) => p.id === id)?.label ?? id;
}

const PAGE = 20;

/** The link to a pool's leaderboard. */
export function leaderboardHref(pool: string): string {
  return `#/leaderboard/${pool}`;
}

/** `pool`'s leaderboard, `PAGE` lines at a time. */
export function renderLeaderboard(root: HTMLElement, pool: string, go: (hash: string) => void): void {
  const picker = h("select", { id: "pool", "aria-label": "pool" },
    POOLS.map((p) => h("option", { value: p.id, selected: p.id === pool }, p.label)),
    !POOLS.some((p) => p.id === pool) && h("option", { value: pool, selected: true }, pool));
  picker.addEventListener("change", () => go(leaderboardHref(picker.value)));
  const rows = h("tbody", { id: "leaderboard-lines" });
  const yours = h("p", { id: "your-rating" });
  const where = h("span", { id: "leaderboard-page" });
  const prev = h("button", { type: "button", id: "leaderboard-prev", disabled: true }, "Previous");
  const next = h("button", { type: "button", id: "leaderboard-next", disabled: true }, "Next");
  const message = h("p", { class: "message", role: "alert" });
  fill(root, h("section", { class: "panel", "aria-labelledby": "leaderboard-title" },
    h("h2", { id: "leaderboard-title" }, "Leaderboard"),
    h("div", { class: "row" }, h("label", { for: "pool" }, "Pool"), picker),
    yours,
    h("table", { class: "games leaderboard", "aria-label": "leaderboard" },
      h("thead", {}, h("tr", {}, ["rank", "name", "rating", "deviation", "games"].map((c) => h("th", { scope: "col" }, c)))),
      rows),
    h("div", { class: "row" }, prev, where, next),
    h("p", { class: "hint" }, "A rating is provisional, and kept off the board, until its deviation is low enough: play more rated games."),
    message));

  let offset = 0;
  const load = async () => {
    prev.disabled = next.disabled = true;
    try {
      const r = await api.ratings.getLeaderboard({ pool, offset, limit: PAGE });
      fill(rows, r.lines.length === 0
        ? h("tr", {}, h("td", { colspan: 5 }, offset ? "No more lines." : "Nobody is established in this pool yet."))
        : r.lines.map((l) => h("tr", { class: "leaderboard-line", "data-name": l.name },
          h("td", {}, `${l.rank}`),
          h("td", {}, h("a", { href: `#/player/${encodeURIComponent(l.name)}` }, l.name), l.kind === AccountKind.BOT ? h("span", { class: "tag" }, "bot") : ""),
          h("td", { class: "rating" }, `${Math.round(l.rating)}`),
          h("td", {}, `±${Math.round(l.deviation)}`),
          h("td", {}, `${l.games}`))));
      const total = Number(r.total);
      fill(where, total ? `${offset + 1}–${offset + r.lines.length} of ${total}` : "");
      prev.disabled = offset === 0;
      next.disabled = offset + r.lines.length >= total;
    } catch (e) {
      fill(message, api.explain(e));
    }
  };
  prev.addEventListener("click", () => { offset = Math.max(0, offset - PAGE); void load(); });
  next.addEventListener("click", () => { offset += PAGE; void load(); });
  void load();

  // The signed-in account's own line, wherever it stands (provisional: not on the board).
  const me = api.me;
  if (me) {
    fill(yours, "loading your rating…");
    void api.ratings.getPlayerRatings({ name: me.name }).then((r) => {
      const mine = r.ratings.find((x) => x.pool === pool);
      fill(yours, mine
        ? ["Your rating: ", h("strong", { class: "rating" }, `${Math.round(mine.rating)}`), ` ±${Math.round(mine.deviation)} · ${gamesText(mine.games)} · `,
          mine.provisional || mine.rank === undefined ? h("span", { class: "tag provisional" }, "provisional") : `rank ${mine.rank}`]
        : "You have no rated game in this pool yet.");
    }, (e) => fill(yours, api.explain(e)));
  }
}

function gamesText(n: number): string {
  return `${n} ${n === 1 ? "game" : "games"}`;
}

/** `name`'s ratings, one line per pool with a chart of its history (filled into `into`). */
export function renderPlayerRatings(into: HTMLElement, name: string): void {
  fill(into, "loading ratings…");
  void api.ratings.getPlayerRatings({ name }).then((r) => {
    if (r.ratings.length === 0) {
      fill(into, "No rated games yet.");
      return;
    }
    const rows = r.ratings.map((x) => ratingRow(name, x));
    fill(into, h("table", { class: "games ratings", "aria-label": "ratings" },
      h("thead", {}, h("tr", {}, ["pool", "rating", "deviation", "games", "rank", "history"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rows)));
  }, (e) => fill(into, api.explain(e)));
}

function ratingRow(name: string, x: PoolRating): HTMLElement {
  const chart = h("td", { class: "history" });
  void history(name, x.pool).then((points) => fill(chart, sparkline(points, `${poolLabel(x.pool)}: rating after each of ${points.length} rated games`)),
    (e) => fill(chart, api.explain(e)));
  return h("tr", { class: "pool-rating", "data-pool": x.pool },
    h("td", {}, h("a", { href: leaderboardHref(x.pool) }, poolLabel(x.pool))),
    h("td", { class: "rating" }, `${Math.round(x.rating)}`),
    h("td", { class: "deviation" }, `±${Math.round(x.deviation)}`),
    h("td", { class: "pool-games" }, `${x.games}`),
    h("td", { class: "rank" }, x.provisional || x.rank === undefined ? h("span", { class: "tag provisional" }, "provisional") : `#${x.rank}`),
    chart);
}

/** `name`'s ratings after each rated game in `pool`, oldest first (at most 500). */
async function history(name: string, pool: string): Promise<number[]> {
  const after: number[] = [];
  let page = "";
  for (let i = 0; i < 5; i++) {
    const r = await api.ratings.getRatingHistory({ name, pool, limit: 100, page });
    after.push(...r.changes.map((c) => c.ratingAfter));
    page = r.nextPage;
    if (!page) break;
  }
  return after.reverse();
}

const SVG = "http://www.w3.org/2000/svg";

/** A small line chart of `points` (left: the oldest), its range written beside it. */
function sparkline(points: number[], label: string): SVGSVGElement {
  const W = 160, H = 40, PAD = 4;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", `${W}`);
  svg.setAttribute("height", `${H}`);
  svg.setAttribute("class", "sparkline");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.dataset.points = points.map((p) => Math.round(p)).join(",");
  const title = document.createElementNS(SVG, "title");
  title.textContent = `${label}: ${points.map((p) => Math.round(p)).join(", ")}`;
  svg.append(title);
  if (points.length === 0) return svg;
  const lo = Math.min(...points), hi = Math.max(...points);
  const span = hi - lo || 1;
  const x = (i: number) => points.length === 1 ? W / 2 : PAD + (i * (W - 2 * PAD)) / (points.length - 1);
  const y = (v: number) => hi === lo ? H / 2 : H - PAD - ((v - lo) * (H - 2 * PAD)) / span;
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#1d6b45");
  line.setAttribute("stroke-width", "2");
  svg.append(line);
  const dot = document.createElementNS(SVG, "circle");
  dot.setAttribute("cx", x(points.length - 1).toFixed(1));
  dot.setAttribute("cy", y(points[points.length - 1]).toFixed(1));
  dot.setAttribute("r", "3");
  dot.setAttribute("fill", "#1d6b45");
  svg.append(dot);
  return svg;
}
