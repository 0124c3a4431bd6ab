// The lobby: play a house bot, quick match, create a game to share; open games to join or
// watch; the rated ladder (ladder.ts); tournaments to follow.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import type { OpenGame } from "./gen/gin/v1/lobby_pb.js";
import { TournamentStatus } from "./gen/gin/v1/tournament_pb.js";
import { renderLadder } from "./ladder.js";

/** A format people choose: the two-player presets, then the tables of the other formats. */
interface Choice {
  label: string;
  /** Two-player gin rules preset, or "" for a format. */
  preset: string;
  /** A format preset ("three-player", "teams", "gin-7", "rummy"), or "". */
  format: string;
  /** The table sizes it allows (a single one for fixed sizes). */
  players: number[];
  /** The house bots the server plays there, the default first. */
  bots: string[];
}

// The house plays each at every table (at gin-7 and rummy `strong` is a search of its own).
const ALL_BOTS = ["simple", "strong", "random"];

const CHOICES: Choice[] = [
  { label: "Gin rummy, two players (standard)", preset: "standard", format: "", players: [2], bots: ALL_BOTS },
  { label: "Gin rummy, two players, Oklahoma", preset: "oklahoma", format: "", players: [2], bots: ALL_BOTS },
  { label: "Gin rummy, two players, classic", preset: "classic", format: "", players: [2], bots: ALL_BOTS },
  { label: "Gin rummy, two players, American", preset: "american", format: "", players: [2], bots: ALL_BOTS },
  { label: "Gin rummy, three players rotating", preset: "", format: "three-player", players: [3], bots: ALL_BOTS },
  { label: "Gin rummy, four players in two teams", preset: "", format: "teams", players: [4], bots: ALL_BOTS },
  { label: "Gin rummy with 7 cards, 3 to 6 at one table", preset: "", format: "gin-7", players: [3, 4, 5, 6], bots: ALL_BOTS },
  { label: "Rummy, 2 to 6 players", preset: "", format: "rummy", players: [2, 3, 4, 5, 6], bots: ALL_BOTS },
];

export function renderHome(root: HTMLElement, go: (hash: string) => void): void {
  // Signed in, the server seats the account under its own name.
  const name = h("input", { id: "name", value: api.me?.name ?? api.playerName(), maxlength: 32, autocomplete: "nickname", disabled: !!api.me, title: api.me ? "signed in: you play as your account" : undefined });
  const kind = h("select", { id: "format" }, CHOICES.map((c, i) => h("option", { value: i }, c.label)));
  const players = h("select", { id: "players" });
  const bot = h("select", { id: "bot" });
  const message = h("p", { class: "message", role: "alert", id: "home-message" });
  const choice = () => CHOICES[Number(kind.value)];
  const sizes = () => {
    const c = choice();
    const keep = Number(players.value);
    fill(players, c.players.map((n) => h("option", { value: n, selected: n === keep }, `${n} players`)));
    players.disabled = c.players.length === 1;
    // Only the house bots the server plays at this table (it refuses the others).
    const keepBot = c.bots.includes(bot.value) ? bot.value : c.bots[0];
    fill(bot, c.bots.map((b) => h("option", { value: b, selected: b === keepBot }, b)));
  };
  kind.addEventListener("change", sizes);
  sizes();

  const busy = (on: boolean) => root.querySelectorAll<HTMLButtonElement>("button.start").forEach((b) => (b.disabled = on));
  /** The rules part of a request. */
  const table = () => {
    const c = choice();
    return c.format
      ? { format: c.format, players: Number(players.value) }
      : { rules: { kind: { case: "preset" as const, value: c.preset } } };
  };
  const start = async (what: string, call: () => Promise<{ gameId: string; seat: number; seatToken: string }>) => {
    if (!api.me) api.keepName(name.value.trim());
    busy(true);
    fill(message, what + "…");
    try {
      const r = await call();
      api.keepSeat(r.gameId, { seat: r.seat, token: r.seatToken });
      go(`#/play/${r.gameId}`);
    } catch (e) {
      fill(message, api.explain(e));
    } finally {
      busy(false);
    }
  };
  const vsBot = () => start("creating a game", async () => {
    const c = choice();
    const r = await api.lobby.createGame({ ...table(), join: true, name: name.value.trim(), houseBot: bot.value, houseBots: c.format ? Number(players.value) - 1 : 0 });
    return { gameId: r.gameId, seat: r.seat ?? 0, seatToken: r.seatToken };
  });
  const create = () => start("creating a game", async () => {
    const r = await api.lobby.createGame({ ...table(), join: true, name: name.value.trim() });
    return { gameId: r.gameId, seat: r.seat ?? 0, seatToken: r.seatToken };
  });
  const quick = () => start("looking for other players (a house bot joins after 20 s)", async () => {
    const r = await api.lobby.quickMatch({ ...table(), name: name.value.trim(), houseBot: bot.value, houseBotAfterMs: 20000 }, { timeoutMs: 70000 });
    return { gameId: r.gameId, seat: r.seat, seatToken: r.seatToken };
  });

  const games = h("div", { id: "open-games", "aria-live": "polite" }, "loading open games…");
  const tours = h("div", { id: "tournaments" });
  const ladder = h("section", { class: "panel", id: "ladder", "aria-labelledby": "ladder-title" });
  const watchId = h("input", { id: "watch-id", placeholder: "game id", "aria-label": "game id to watch" });

  fill(root,
    h("section", { class: "panel", "aria-labelledby": "new-game" },
      h("h2", { id: "new-game" }, "New game"),
      h("div", { class: "form" },
        h("label", { for: "name" }, "Your name"), name,
        h("label", { for: "format" }, "Game"), kind,
        h("label", { for: "players" }, "Table"), players,
        h("label", { for: "bot" }, "House bot"), bot),
      h("div", { class: "row" },
        h("button", { type: "button", class: "start primary", id: "play-bot", onclick: () => void vsBot() }, "Play the house bot"),
        h("button", { type: "button", class: "start", id: "quick-match", onclick: () => void quick() }, "Quick match"),
        h("button", { type: "button", class: "start", id: "create", onclick: () => void create() }, "Create a game to share")),
      message),
    h("section", { class: "panel", "aria-labelledby": "open" },
      h("h2", { id: "open" }, "Open games"),
      games,
      h("form", { class: "row", onsubmit: (ev: Event) => { ev.preventDefault(); if (watchId.value.trim()) go(`#/watch/${watchId.value.trim()}`); } },
        watchId, h("button", { type: "submit" }, "Watch"))),
    h("section", { class: "panel", "aria-labelledby": "ratings-title" },
      h("h2", { id: "ratings-title" }, "Ratings"),
      h("p", {}, "Rated games (a challenge from a player's profile, rated, or the ladder) move the accounts' ratings: ",
        h("a", { id: "leaderboard-link", href: "#/leaderboard/gin/standard" }, "the leaderboards"), ".")),
    ladder,
    h("section", { class: "panel", "aria-labelledby": "tours" },
      h("h2", { id: "tours" }, "Tournaments"), tours));

  renderLadder(ladder, go);
  void api.lobby.listGames({ pageSize: 50 }).then((r) => {
    fill(games, r.games.length === 0 ? "No open games: create one and share its link." : h("ul", {}, r.games.map((g) => openGame(g, go))));
  }, (e) => fill(games, api.explain(e)));
  void api.tournaments.listTournaments({ limit: 20 }).then((r) => {
    fill(tours, r.tournaments.length === 0 ? "No tournaments." : h("ul", {}, r.tournaments.map((t) =>
      h("li", {}, h("a", { href: `#/tournament/${t.tournamentId}` }, `${t.tournamentId}`), ` ${t.spec?.name ?? ""} · ${t.status === TournamentStatus.FINISHED ? "finished" : `${t.gamesDone}/${t.gamesTotal} games`}`))));
  }, (e) => fill(tours, api.explain(e)));
}

function openGame(g: OpenGame, go: (hash: string) => void): HTMLElement {
  const free = g.seats.filter((s) => !s.taken).length;
  const who = g.seats.filter((s) => s.taken).map((s) => s.name || `seat ${s.seat}`).join(", ");
  return h("li", {},
    `${g.format?.name || g.rules?.name || "gin"} · ${who || "nobody yet"} · ${free} free${g.fixedDeals ? " · fixed deals" : ""} `,
    h("button", { type: "button", onclick: () => go(`#/join/${g.gameId}`) }, "Join"), " ",
    h("button", { type: "button", onclick: () => go(`#/watch/${g.gameId}`) }, "Watch"));
}
