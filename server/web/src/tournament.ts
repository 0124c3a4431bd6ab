// One tournament, live: standings (per entrant, and per team in team play), each entrant's
// rating with its interval as a chart over the games played, the SPRT's log-likelihood ratio
// against its bounds, and the games, those in progress a click away from watching.
//
// The chart starts from the server's rating history (GetTournament) and goes on with the
// standings the server streams (WatchTournament) after every game.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import { TournamentStatus, type TournamentState } from "./gen/gin/v1/tournament_pb.js";

const COLOURS = ["#1b6ac9", "#c0172a", "#2e8b57", "#9b59b6", "#d4a017", "#16a2b8", "#e67e22", "#555"];
const SVG = "http://www.w3.org/2000/svg";

interface Point {
  games: number;
  elo: number;
  low: number;
  high: number;
}

export class TournamentView {
  private state: TournamentState | undefined;
  private games: TournamentState["games"] = [];
  private readonly history = new Map<number, Point[]>();
  private readonly stop = new AbortController();
  private connection = "connecting…";
  private lastGet = 0;

  constructor(private readonly root: HTMLElement, private readonly id: string) {}

  start(): void {
    void this.follow();
    this.render();
  }

  close(): void {
    this.stop.abort();
  }

  private async follow(): Promise<void> {
    await api.follow(() => api.tournaments.watchTournament({ tournamentId: this.id }, { signal: this.stop.signal }), {
      signal: this.stop.signal,
      message: (m) => {
        if (m.state) this.take(m.state);
      },
      connection: (text) => {
        this.connection = text;
        this.render();
      },
      started: () => this.state !== undefined,
      over: () => this.state?.status === TournamentStatus.FINISHED,
    });
    if (this.state?.status === TournamentStatus.FINISHED) await this.readGames(true);
  }


  private take(s: TournamentState): void {
    this.state = s;
    for (const r of s.standings?.rows ?? []) {
      if (r.games === 0) continue;
      const points = this.history.get(r.entrant) ?? [];
      const last = points[points.length - 1];
      // A point when the entrant's rating moved (it played a game since).
      const moved = !last || last.elo !== r.elo || last.low !== r.eloLow || last.high !== r.eloHigh;
      if (moved && (!last || s.gamesDone > last.games)) points.push({ games: s.gamesDone, elo: r.elo, low: r.eloLow, high: r.eloHigh });
      this.history.set(r.entrant, points);
    }
    void this.readGames(s.status === TournamentStatus.FINISHED);
    this.render();
  }

  /** The games list comes with GetTournament only: read at most every 2 s (and at the end). */
  private async readGames(force: boolean): Promise<void> {
    if (!force && Date.now() - this.lastGet < 2000) return;
    this.lastGet = Date.now();
    try {
      const r = await api.tournaments.getTournament({ tournamentId: this.id }, { signal: this.stop.signal });
      if (r.state) {
        this.games = r.state.games;
        // The server's history of every entrant's rating, then what the stream adds after it.
        if (r.state.ratingHistory.length > 0) {
          const byEntrant = new Map<number, Point[]>();
          for (const p of r.state.ratingHistory) {
            const list = byEntrant.get(p.entrant) ?? [];
            list.push({ games: p.games, elo: p.elo, low: p.eloLow, high: p.eloHigh });
            byEntrant.set(p.entrant, list);
          }
          for (const [e, list] of byEntrant) {
            const last = list[list.length - 1];
            // What the stream saw after the server's last point, if the rating moved since.
            const newer = (this.history.get(e) ?? []).filter((q) => q.games > last.games && (q.elo !== last.elo || q.low !== last.low || q.high !== last.high));
            this.history.set(e, list.concat(newer));
          }
        }
        if (!this.state || r.state.gamesDone >= this.state.gamesDone) this.state = r.state;
        this.render();
      }
    } catch {
      // The stream's next state tries again.
    }
  }

  private name(entrant: number): string {
    return this.state?.standings?.rows.find((r) => r.entrant === entrant)?.name || `entrant ${entrant}`;
  }

  private render(): void {
    const s = this.state;
    if (!s) {
      fill(this.root, h("p", { class: "status", role: "status" }, this.connection || "loading…"));
      return;
    }
    const status = s.status === TournamentStatus.FINISHED ? "finished" : s.status === TournamentStatus.WAITING ? "waiting for entrants" : "running";
    this.root.dataset.status = status;
    this.root.dataset.gamesDone = String(s.gamesDone);
    const tables = (s.gameFormat?.players ?? 2) > 2;
    const rows = s.standings?.rows ?? [];
    fill(this.root,
      h("header", { class: "game-header" },
        h("h2", {}, s.spec?.name || `Tournament ${this.id}`, h("span", { class: "tag" }, s.gameFormat?.name || s.spec?.rules?.kind.value?.toString() || "gin")),
        h("p", { class: "status", role: "status", "aria-live": "polite", id: "status" },
          `${status[0].toUpperCase()}${status.slice(1)}: ${s.gamesDone} of ${s.gamesTotal} games played${s.gamesRunning ? `, ${s.gamesRunning} in progress` : ""}`),
        h("progress", { max: Math.max(1, s.gamesTotal), value: s.gamesDone, "aria-label": "games played" }),
        this.connection && h("p", { class: "connection" }, this.connection)),
      h("section", { class: "panel" },
        h("table", { class: "standings", "aria-label": "standings", id: "standings" },
          h("thead", {}, h("tr", {},
            ["#", "entrant", "games", "won", "lost", "drawn", "score", tables ? "mean place" : "points ±", "Elo (95% interval)"].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, rows.map((r, i) => h("tr", {},
            h("td", {}, String(i + 1)),
            h("th", { scope: "row" }, h("span", { class: "swatch", style: `background:${COLOURS[r.entrant % COLOURS.length]}` }), r.name || `entrant ${r.entrant}`),
            h("td", {}, String(r.games)), h("td", {}, String(r.wins)), h("td", {}, String(r.losses)), h("td", {}, String(r.draws)),
            h("td", {}, `${(r.score * 100).toFixed(1)}%`),
            h("td", {}, tables ? r.meanPlace.toFixed(2) : String(Number(r.pointsFor) - Number(r.pointsAgainst))),
            h("td", {}, r.games ? `${r.elo.toFixed(0)} [${r.eloLow.toFixed(0)}, ${r.eloHigh.toFixed(0)}]` : "–"))))),
        (s.standings?.teams.length ?? 0) > 0 && h("table", { class: "standings", "aria-label": "team standings" },
          h("thead", {}, h("tr", {}, ["team", "games", "won", "lost", "points", "score"].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, s.standings!.teams.map((t) => h("tr", {},
            h("th", { scope: "row" }, t.names.join(" & ")), h("td", {}, String(t.games)), h("td", {}, String(t.wins)), h("td", {}, String(t.losses)),
            h("td", {}, String(t.points)), h("td", {}, `${(t.score * 100).toFixed(1)}%`)))))),
      h("section", { class: "panel" }, h("h3", {}, "Ratings over the games played"), this.chart()),
      s.sprtState && h("section", { class: "panel", id: "sprt" }, h("h3", {}, "SPRT"), this.sprt(s)),
      h("section", { class: "panel" }, h("h3", {}, "Games"), this.gameList()));
  }

  /** Each entrant's Elo over the games played, its interval as a band. */
  private chart(): Element {
    const series = [...this.history.entries()].filter(([, p]) => p.length > 0);
    const all = series.flatMap(([, p]) => p);
    if (all.length === 0) return h("p", {}, "No game finished yet.");
    const W = 640, H = 240, L = 44, B = 24, T = 8, R = 8;
    const x0 = Math.min(...all.map((p) => p.games)), x1 = Math.max(...all.map((p) => p.games), x0 + 1);
    const lows = all.map((p) => (Number.isFinite(p.low) ? p.low : p.elo)), highs = all.map((p) => (Number.isFinite(p.high) ? p.high : p.elo));
    let y0 = Math.min(...lows), y1 = Math.max(...highs);
    y0 = Math.max(y0, -800);
    y1 = Math.min(y1, 800);
    if (y1 - y0 < 50) { y0 -= 25; y1 += 25; }
    const px = (g: number) => L + ((g - x0) / (x1 - x0)) * (W - L - R);
    const py = (e: number) => T + (1 - (Math.min(Math.max(e, y0), y1) - y0) / (y1 - y0)) * (H - T - B);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("class", "chart");
    svg.setAttribute("id", "rating-chart");
    svg.setAttribute("role", "img");
    const last = series.map(([e, p]) => `${this.name(e)} ${p[p.length - 1].elo.toFixed(0)} [${p[p.length - 1].low.toFixed(0)}, ${p[p.length - 1].high.toFixed(0)}]`).join("; ");
    svg.setAttribute("aria-label", `Elo ratings with 95% intervals over ${x0} to ${x1} games played; now ${last}`);
    const el = (tag: string, attrs: Record<string, string | number>, text?: string) => {
      const e = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
      if (text) e.textContent = text;
      svg.append(e);
      return e;
    };
    for (const v of [y0, (y0 + y1) / 2, y1]) {
      el("line", { x1: L, x2: W - R, y1: py(v), y2: py(v), stroke: "#ddd" });
      el("text", { x: L - 4, y: py(v) + 4, "text-anchor": "end", "font-size": 11 }, v.toFixed(0));
    }
    if (y0 < 0 && y1 > 0) el("line", { x1: L, x2: W - R, y1: py(0), y2: py(0), stroke: "#999", "stroke-dasharray": "4 3" });
    el("text", { x: W - R, y: H - 6, "text-anchor": "end", "font-size": 11 }, `games played (${x1})`);
    for (const [e, p] of series) {
      const c = COLOURS[e % COLOURS.length];
      const band = p.map((q) => `${px(q.games)},${py(Number.isFinite(q.high) ? q.high : q.elo)}`).concat([...p].reverse().map((q) => `${px(q.games)},${py(Number.isFinite(q.low) ? q.low : q.elo)}`));
      el("polygon", { points: band.join(" "), fill: c, "fill-opacity": 0.12, stroke: "none" });
      el("polyline", { points: p.map((q) => `${px(q.games)},${py(q.elo)}`).join(" "), fill: "none", stroke: c, "stroke-width": 2 });
      const q = p[p.length - 1];
      el("circle", { cx: px(q.games), cy: py(q.elo), r: 3, fill: c });
    }
    return svg;
  }

  /** The log-likelihood ratio on a gauge between its bounds. */
  private sprt(s: TournamentState): Element {
    const lo = s.sprtLower, hi = s.sprtUpper;
    const span = hi - lo || 1;
    const at = Math.min(Math.max((s.sprtLlr - lo) / span, 0), 1) * 100;
    return h("div", { class: "sprt" },
      h("p", {}, `${s.sprtState}: log-likelihood ratio ${s.sprtLlr.toFixed(2)} between ${lo.toFixed(2)} (accept H0) and ${hi.toFixed(2)} (accept H1)`),
      h("div", { class: "gauge", role: "meter", "aria-valuemin": lo.toFixed(2), "aria-valuemax": hi.toFixed(2), "aria-valuenow": s.sprtLlr.toFixed(2), "aria-label": "SPRT log-likelihood ratio" },
        h("span", { class: "needle", style: `left:${at}%` })));
  }

  private gameList(): Element {
    if (this.games.length === 0) return h("p", {}, "No game booked yet.");
    const running = this.games.filter((g) => !g.done && g.gameId);
    const done = this.games.filter((g) => g.done);
    const seats = (g: (typeof this.games)[number]) => (g.entrants.length ? g.entrants : [g.seat0, g.seat1]);
    const who = (g: (typeof this.games)[number]) => seats(g).map((e) => this.name(e)).join(" v ");
    return h("div", {},
      h("h4", {}, `In progress (${running.length})`),
      running.length === 0 ? h("p", {}, "none") : h("ul", { id: "running-games" }, running.map((g) =>
        h("li", {}, h("a", { href: `#/watch/${g.gameId}` }, `game ${g.number + 1}: ${who(g)}`)))),
      h("h4", {}, `Finished (${done.length})`),
      h("ul", { class: "finished-games" }, done.slice(-20).reverse().map((g) =>
        h("li", {}, h("a", { href: `#/watch/${g.gameId}` }, `game ${g.number + 1}: ${who(g)}`),
          ` · ${g.winner !== undefined ? `${this.name(seats(g)[g.winner])} won` : g.places.length ? `places ${g.places.join("/")}` : "drawn"} · ${(g.tableTotals.length ? g.tableTotals : g.totals).join("–")}`))));
  }
}
