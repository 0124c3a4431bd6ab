// A small Gin Rummy bot in TypeScript: @grpc/grpc-js, with proto/ loaded at run time by
// @grpc/proto-loader (and types generated from the same files by proto-loader-gen-types).
//
// It creates games against the server's house bots, at two-player gin or, with --format, at a
// table of any format (three players, teams, gin for 3 to 6, rummy: the house bots take every
// other seat). It watches its seat's event stream and plays the legal actions the server
// sends with each of its turns (with expected_seq, resyncing on ABORTED), to game over. After
// each game it reads the record back (GetRecord) and checks that it agrees with the game-over
// event: the same result, the target reached, the winners and places those of the totals,
// and (at a table) the record's own result, our moves and one reveal per hand. Signed in
// (--account-token, GIN_ACCOUNT_TOKEN, or --register NAME: a new bot account), the lobby calls
// carry the account token, so each seat is the account's; after each game it also checks that
// GetGame names the account (a bot) at our seat and that the account's ListPlayerGames lists
// the game. Exit status 0 only if every game finished and every check passed.
//
//     node dist/bot.js --server 127.0.0.1:50051 --vs-bot simple --games 3
//     node dist/bot.js --format '{"kind":"teams","target":50}' --vs-bot simple
//     node dist/bot.js --register my-ts-bot          # the token goes to stderr, once
//     GIN_ACCOUNT_TOKEN=gin_at_... node dist/bot.js --games 3
//     GIN_ACCOUNT_TOKEN=gin_at_... node dist/bot.js --ladder --rules standard --games 10
//
// With --ladder (signed in) each game is the server's rated ladder's instead: it joins the
// pool (LadderService.JoinLadder), waits for its seat (printing its rating once), plays the
// game with the seat token the ladder gave, checks it as any other, and joins again.

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import type { ProtoGrpcType as AccountProto } from "./generated/account.js";
import type { ProtoGrpcType as GameProto } from "./generated/game.js";
import type { ProtoGrpcType as LadderProto } from "./generated/ladder.js";
import type { JoinLadderResponse__Output as JoinLadderResponse } from "./generated/gin/v1/JoinLadderResponse.js";
import type { LadderMatched__Output as LadderMatched } from "./generated/gin/v1/LadderMatched.js";
import type { LadderServiceClient } from "./generated/gin/v1/LadderService.js";
import type { ProtoGrpcType as LobbyProto } from "./generated/lobby.js";
import type { AccountServiceClient } from "./generated/gin/v1/AccountService.js";
import type { GameServiceClient } from "./generated/gin/v1/GameService.js";
import type { LobbyServiceClient } from "./generated/gin/v1/LobbyService.js";
import type { GameResult__Output as GameResult } from "./generated/gin/v1/GameResult.js";
import type { GameSnapshot__Output as GameSnapshot } from "./generated/gin/v1/GameSnapshot.js";
import type { GetRecordResponse__Output as GetRecordResponse } from "./generated/gin/v1/GetRecordResponse.js";
import type { LegalAction__Output as LegalAction } from "./generated/gin/v1/LegalAction.js";
import type { ListPlayerGamesResponse__Output as ListPlayerGamesResponse } from "./generated/gin/v1/ListPlayerGamesResponse.js";
import type { RegisterResponse__Output as RegisterResponse } from "./generated/gin/v1/RegisterResponse.js";
import type { TurnInfo__Output as TurnInfo } from "./generated/gin/v1/TurnInfo.js";
import type { WatchGameResponse__Output as WatchGameResponse } from "./generated/gin/v1/WatchGameResponse.js";

const PROTO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "proto");

// The same options as the `gen` script, so the generated types describe these objects:
// 64-bit numbers as strings, enums as their names, defaults filled in, oneof names set.
const LOADER_OPTIONS: protoLoader.Options = {
  includeDirs: [PROTO_ROOT],
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  keepCase: true,
};

class CheckFailed extends Error {}

/** How long UNAVAILABLE in a row is retried (a server restarting, a lease moving). */
const RETRY_FOR_MS = 60_000;

/** Whether the server refused the call before doing anything: UNAVAILABLE with the metadata
 * retry-after-ms (a cluster server whose lease ran out, a game moving to another server, a
 * proxy with no server to take it). Then even CreateGame may be sent again. */
function nothingDone(e: grpc.ServiceError): boolean {
  return e.code === grpc.status.UNAVAILABLE && (e.metadata?.get("retry-after-ms").length ?? 0) > 0;
}

/** A unary call as a promise, retried with a backoff (0.1 s doubling to 2 s) while it fails
 * UNAVAILABLE, for up to RETRY_FOR_MS. A call made `once` (CreateGame: a retry after a lost
 * answer would seat us twice) is retried only when nothing was done (nothingDone). */
async function unary<Req, Res>(
  client: grpc.Client,
  method: string,
  req: Req,
  md = new grpc.Metadata(),
  once = false,
): Promise<Res> {
  const fn = (client as unknown as Record<string, Function>)[method].bind(client);
  const until = Date.now() + RETRY_FOR_MS;
  let wait = 100;
  for (;;) {
    const deadline = new Date(Date.now() + 20_000);
    try {
      return await new Promise<Res>((resolve, reject) =>
        fn(req, md, { deadline }, (err: grpc.ServiceError | null, res: Res) => (err ? reject(err) : resolve(res))),
      );
    } catch (e) {
      const err = e as grpc.ServiceError;
      if (err.code !== grpc.status.UNAVAILABLE || (once && !nothingDone(err)) || Date.now() > until) throw e;
      console.error(`  ${grpc.status[err.code]} (${err.details}): retrying ${method}`);
    }
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 2000);
  }
}

/** Picks one of the legal actions the server sent, for any format. Rummy: lay a meld (the one
 * with the most cards), else lay a card off. Knock when we may (big gin, then the least
 * deadwood first: gin), else the server's suggested best discard; draw from the stock, pass
 * the upcard. */
function choose(turn: TurnInfo): LegalAction {
  const legal = turn.legal_actions;
  const of = (kind: string) => legal.filter((a) => a.kind === kind);
  const melds = of("ACTION_KIND_MELD").sort((a, b) => b.cards.length - a.cards.length);
  if (melds.length > 0) return melds[0];
  const layoffs = of("ACTION_KIND_LAY_OFF");
  if (layoffs.length > 0) return layoffs[0];
  const bigGin = of("ACTION_KIND_BIG_GIN");
  if (bigGin.length > 0) return bigGin[0];
  const knocks = of("ACTION_KIND_KNOCK").sort((a, b) => a.deadwood - b.deadwood);
  if (knocks.length > 0) return knocks[0];
  const discards = of("ACTION_KIND_DISCARD");
  if (discards.length > 0) return discards.find((a) => a.card === turn.best_discard) ?? discards[0];
  return of("ACTION_KIND_PASS_UPCARD")[0] ?? of("ACTION_KIND_DRAW_STOCK")[0] ?? legal[0];
}

/** Sends one action with expected_seq = the last seq we saw. */
async function send(games: GameServiceClient, gameId: string, md: grpc.Metadata, seq: string, a: LegalAction) {
  const base = { game_id: gameId, expected_seq: seq };
  const c = games as unknown as grpc.Client;
  switch (a.kind) {
    case "ACTION_KIND_TAKE_UPCARD":
      return unary(c, "TakeUpcard", base, md);
    case "ACTION_KIND_PASS_UPCARD":
      return unary(c, "PassUpcard", base, md);
    case "ACTION_KIND_DRAW_STOCK":
      return unary(c, "Draw", { ...base, source: "DRAW_SOURCE_STOCK" }, md);
    case "ACTION_KIND_DRAW_PILE":
      return unary(c, "Draw", { ...base, source: "DRAW_SOURCE_PILE" }, md);
    case "ACTION_KIND_DISCARD":
      return unary(c, "Discard", { ...base, card: a.card }, md);
    case "ACTION_KIND_KNOCK": // no melds: the server lays down a minimum-deadwood arrangement
      return unary(c, "Knock", { ...base, discard: a.card }, md);
    case "ACTION_KIND_BIG_GIN":
      return unary(c, "Knock", { ...base, discard: "" }, md);
    case "ACTION_KIND_MELD":
      return unary(c, "LayMeld", { ...base, cards: a.cards }, md);
    case "ACTION_KIND_LAY_OFF":
      return unary(c, "LayOff", { ...base, card: a.card, meld: a.meld }, md);
    default:
      throw new Error(`unknown action kind ${a.kind}`);
  }
}

interface Played {
  result: GameResult;
  hands: number;
  actions: number;
  aborted: number;
}

/** Whether a snapshot says our seat is to act (with its legal actions): two-player gin names
 * one seat_to_act; the other formats list seats_to_act (team play: two at once). */
function myTurn(snap: GameSnapshot, seat: number): boolean {
  return snap.turn !== null && (snap.seats_to_act.includes(seat) || snap.seat_to_act === seat);
}

/** Plays our turn: one of its legal actions with expected_seq = seq. On ABORTED (the seq is
 * stale: nothing was applied) it resyncs with GetGame: if it is still our turn, it decides
 * again from the snapshot's legal actions and seq; if not, the stream brings what happened.
 * Returns the seq the action was accepted at (or null) and the ABORTED refusals. */
async function act(
  games: GameServiceClient, gameId: string, seat: number, md: grpc.Metadata,
  turn: TurnInfo, seq: bigint, stale: bigint | null, // the stale expected_seq to send first, if any
): Promise<{ done: bigint | null; aborted: number }> {
  let aborted = 0;
  for (;;) {
    try {
      await send(games, gameId, md, (stale ?? seq).toString(), choose(turn));
      return { done: seq, aborted };
    } catch (e) {
      if ((e as grpc.ServiceError).code !== grpc.status.ABORTED) throw e;
    }
    aborted++;
    stale = null;
    const { snapshot: snap } = await unary<object, { snapshot: GameSnapshot }>(
      games as unknown as grpc.Client, "GetGame", { game_id: gameId }, md);
    console.error(`  ABORTED at seq ${seq} (the game is at ${snap.seq}): resyncing`);
    if (!myTurn(snap, seat) || !snap.turn) return { done: null, aborted };
    turn = snap.turn;
    seq = BigInt(snap.seq);
  }
}

/** Plays our seat to game over, resuming the stream after the last seq if it drops. With
 * staleFirst, the first action goes with a stale expected_seq, to show the resync: the seq
 * before the turn's, or in team play 0 (two seats act at once, one per table: the other
 * table's moves do not make our expected_seq stale, and the event before our turn may be one
 * of them). */
async function play(
  games: GameServiceClient, gameId: string, seat: number, token: string, staleFirst: boolean,
  teamPlay = false,
): Promise<Played> {
  const md = new grpc.Metadata();
  md.set("authorization", `Bearer ${token}`);
  let lastSeq = 0n; // the last seq seen: the snapshot's, then each event's (uint64: a string on the wire)
  let actedAt = 0n; // the seq of the last turn we played (a resync may play it from a snapshot)
  let hands = 0;
  let actions = 0;
  let aborted = 0;
  for (;;) {
    const stream = games.WatchGame({ game_id: gameId, resume_after_seq: lastSeq.toString() }, md);
    try {
      for await (const msg of stream as AsyncIterable<WatchGameResponse>) {
        let turn: TurnInfo | null = null;
        if (msg.kind === "snapshot" && msg.snapshot) {
          const snap = msg.snapshot;
          lastSeq = BigInt(snap.seq);
          // The hands ended before the stream opened (team play: the house bots' table may
          // have finished one), then each hand-ended event counts one.
          hands = snap.hands.length + snap.table_hands.length;
          if (snap.phase === "PHASE_GAME_OVER" && snap.result) {
            stream.cancel();
            return { result: snap.result, hands, actions, aborted };
          }
          if (myTurn(snap, seat)) turn = snap.turn;
        } else if (msg.kind === "event" && msg.event) {
          const ev = msg.event;
          if (BigInt(ev.seq) <= lastSeq) continue; // already seen (after a resume)
          lastSeq = BigInt(ev.seq);
          if (ev.kind === "hand_ended" || ev.kind === "table_hand_ended") hands++;
          if (ev.kind === "game_over" && ev.game_over?.result) {
            stream.cancel();
            return { result: ev.game_over.result, hands, actions, aborted };
          }
          if (ev.kind === "turn_started" && ev.turn_started?.seat === seat && ev.turn_started.turn) {
            turn = ev.turn_started.turn;
          }
        }
        if (!turn || lastSeq <= actedAt) continue; // not our turn, a heartbeat, or played already
        const stale = staleFirst && actions === 0 ? (teamPlay ? 0n : lastSeq - 1n) : null;
        const r = await act(games, gameId, seat, md, turn, lastSeq, stale);
        if (stale !== null && r.aborted === 0) { // (later ABORTEDs may have other causes)
          throw new CheckFailed(`game ${gameId}: the stale first action was not refused with ABORTED`);
        }
        aborted += r.aborted;
        if (r.done !== null) {
          actedAt = r.done;
          actions++;
        }
      }
    } catch (e) {
      const code = (e as grpc.ServiceError).code;
      if (code !== grpc.status.UNAVAILABLE && code !== grpc.status.CANCELLED) throw e;
      console.error(`  stream ${grpc.status[code]}: resuming after seq ${lastSeq}`);
    }
    await new Promise((r) => setTimeout(r, 200)); // the stream ended early: reopen it
  }
}

/** Reads the record back and checks it against the game-over event. Returns the number of
 * deal reveals. */
async function check(games: GameServiceClient, gameId: string, result: GameResult, target: number): Promise<number> {
  const rec = await unary<object, { result: GameResult; record_json: string; reveals: unknown[] }>(
    games as unknown as grpc.Client, "GetRecord", { game_id: gameId });
  const problems: string[] = [];
  const same = (a: GameResult, b: GameResult) =>
    a.reason === b.reason && a.winner === b.winner && a.margin === b.margin &&
    JSON.stringify(a.totals) === JSON.stringify(b.totals);
  if (!same(rec.result, result)) {
    problems.push(`GetRecord's result ${JSON.stringify(rec.result)} differs from the game-over event's ${JSON.stringify(result)}`);
  }
  const t = result.totals;
  if (result.reason !== "GAME_END_REASON_TARGET") problems.push(`ended by ${result.reason}, not the target`);
  if (t.length !== 2 || Math.max(...t) < target) {
    problems.push(`totals ${JSON.stringify(t)} below the target ${target}`);
  } else if (result.winner === undefined) {
    if (t[0] !== t[1]) problems.push(`no winner with totals ${JSON.stringify(t)}`); // a draw is equal totals
  } else if (t[result.winner] !== Math.max(...t)) {
    problems.push(`winner ${result.winner} has the lower total in ${JSON.stringify(t)}`);
  } else if (result.margin !== Math.abs(t[0] - t[1])) {
    problems.push(`margin ${result.margin} is not the difference of ${JSON.stringify(t)}`);
  }
  if (!JSON.parse(rec.record_json)) problems.push("empty record"); // the engine's record
  if (problems.length > 0) throw new CheckFailed(`game ${gameId}: ${problems.join("; ")}`);
  return rec.reveals.length;
}

/** Each seat's place from the totals: 1 for the best, equal totals share a place. */
function placesOf(totals: number[]): number[] {
  return totals.map((t) => 1 + totals.filter((o) => o > t).length);
}

/** Reads the record of a table game (any format but two-player gin) back and checks it
 * against the game-over event: the same result; the target (or the end the format sets)
 * reached; one total per seat; the winners exactly the seats with the best total (team play:
 * both partners of the better team, each seat with its team's total); the places those of
 * the totals; the record's own result the same totals, as many moves by our seat as actions
 * we sent, and one deal reveal per hand seen ended. Returns our moves in the record and the
 * reveals. */
async function checkTable(
  games: GameServiceClient, gameId: string, seat: number, result: GameResult, snap: GameSnapshot,
  p: Played,
): Promise<{ moves: number; reveals: number }> {
  const rec = await unary<object, GetRecordResponse>(games as unknown as grpc.Client, "GetRecord", { game_id: gameId });
  const players = snap.seats.length;
  const totals = result.table_totals.map(Number); // int64: strings on the wire
  const teamTotals = result.team_totals.map(Number);
  const js = JSON.stringify;
  const problems: string[] = [];
  if (js(rec.result) !== js(result)) {
    problems.push(`GetRecord's result ${js(rec.result)} differs from the game-over event's ${js(result)}`);
  }
  if (result.reason !== "GAME_END_REASON_TARGET") problems.push(`ended by ${result.reason}, not the target`);
  const seats = [...Array(players).keys()];
  const sorted = (xs: number[]) => js([...xs].sort((a, b) => a - b));
  if (totals.length !== players) {
    problems.push(`${totals.length} table totals ${js(totals)} for ${players} seats`);
  } else {
    const best = Math.max(...totals);
    if (sorted(result.winners) !== js(seats.filter((s) => totals[s] === best))) {
      problems.push(`winners ${js(result.winners)} are not the seats with the best of ${js(totals)}`);
    }
    if (js(result.places) !== js(placesOf(totals))) {
      problems.push(`places ${js(result.places)} do not follow the totals ${js(totals)}`);
    }
    if (snap.format?.kind === "teams") {
      const teams = snap.seats.map((s) => s.team);
      if (teams.some((t) => t === undefined) || teamTotals.length !== 2) {
        problems.push(`team play with teams ${js(teams)} and team totals ${js(teamTotals)}`);
      } else {
        if (js(totals) !== js(teams.map((t) => teamTotals[t!]))) {
          problems.push(`seat totals ${js(totals)} are not their teams' ${js(teamTotals)} (teams ${js(teams)})`);
        }
        const best = Math.max(...teamTotals);
        if (sorted(result.winners) !== js(seats.filter((s) => teamTotals[teams[s]!] === best))) {
          problems.push(`winners ${js(result.winners)} are not both partners of the best of the team totals ${js(teamTotals)}`);
        }
      }
    }
  }
  // A `table-record 2`: replayable with `gin replay`.
  const record = JSON.parse(rec.record_json) as {
    version?: number;
    moves?: { seat: number }[];
    result?: { totals?: number[]; team_totals?: number[]; winners?: number[]; places?: number[] };
  };
  const r = record.result ?? {};
  if (record.version !== 2) problems.push(`record version ${record.version}, not a table-record 2`);
  if (js(r.totals) !== js(totals)) problems.push(`the record's result totals ${js(r.totals)} differ from ${js(totals)}`);
  if (js(r.team_totals ?? []) !== js(teamTotals)) {
    problems.push(`the record's team totals ${js(r.team_totals)} differ from ${js(teamTotals)}`);
  }
  if (js(r.winners) !== js(result.winners) || js(r.places) !== js(result.places)) {
    problems.push(`the record's winners ${js(r.winners)} and places ${js(r.places)} differ from ` +
      `${js(result.winners)} and ${js(result.places)}`);
  }
  const moves = (record.moves ?? []).filter((m) => m.seat === seat).length;
  if (moves !== p.actions) problems.push(`the record has ${moves} moves by seat ${seat}, we sent ${p.actions} actions`);
  if (rec.reveals.length !== p.hands) problems.push(`${rec.reveals.length} deal reveals for ${p.hands} hands ended`);
  if (problems.length > 0) throw new CheckFailed(`game ${gameId}: ${problems.join("; ")}`);
  return { moves, reveals: rec.reveals.length };
}

const ACCOUNT_TOKEN_PREFIX = "gin_at_";

/** Registers a bot account (AccountService.Register, ACCOUNT_KIND_BOT) and returns its first
 * token, printed once to stderr: the server keeps only its hash, so keep it (as
 * GIN_ACCOUNT_TOKEN or --account-token) to play as the account again. Sent again only when
 * nothing was done (the account may exist although the answer was lost). */
async function register(accounts: AccountServiceClient, name: string): Promise<string> {
  const r = await unary<object, RegisterResponse>(accounts as unknown as grpc.Client, "Register",
    { name, kind: "ACCOUNT_KIND_BOT", token_label: "typescript-example" }, new grpc.Metadata(), true);
  console.error(`registered bot account ${r.account?.name}; its token, shown this once: ${r.token}`);
  return r.token;
}

/** Signed in: our seat in GetGame names the account, marked a bot (ACCOUNT_KIND_BOT), and the
 * account's ListPlayerGames lists the game at our seat, finished. Returns the account's name. */
async function checkAccount(
  games: GameServiceClient, accounts: AccountServiceClient, gameId: string, seat: number, md: grpc.Metadata,
): Promise<string> {
  const { snapshot: snap } = await unary<object, { snapshot: GameSnapshot }>(
    games as unknown as grpc.Client, "GetGame", { game_id: gameId }, md);
  const mine = snap.seats[seat];
  const problems: string[] = [];
  if (!mine.account) problems.push(`GetGame names no account at our seat ${seat}`);
  if (mine.account_kind !== "ACCOUNT_KIND_BOT") {
    problems.push(`our seat's account kind is ${mine.account_kind}, not ACCOUNT_KIND_BOT`);
  }
  const listed = await unary<object, ListPlayerGamesResponse>(
    accounts as unknown as grpc.Client, "ListPlayerGames", {}, md);
  if (listed.account?.name !== mine.account) {
    problems.push(`the token's account is ${JSON.stringify(listed.account?.name)}, the seat's ${JSON.stringify(mine.account)}`);
  }
  if (listed.account?.kind !== "ACCOUNT_KIND_BOT") {
    problems.push(`ListPlayerGames: the account's kind is ${listed.account?.kind}`);
  }
  const ours = listed.games.find((g) => g.game_id === gameId); // newest first: on the first page
  if (!ours) {
    problems.push(`ListPlayerGames of ${JSON.stringify(listed.account?.name)} does not list the game ` +
      `(it lists ${JSON.stringify(listed.games.map((g) => g.game_id))})`);
  } else if (ours.seat !== seat || ours.finished_unix_ms === "0") {
    problems.push(`ListPlayerGames lists the game at seat ${ours.seat} (ours: ${seat}), finished at ${ours.finished_unix_ms}`);
  }
  if (problems.length > 0) throw new CheckFailed(`game ${gameId}, signed in: ${problems.join("; ")}`);
  return mine.account;
}

/** The ladder pool of --rules / --format / --players (RatingService's pool ids). */
function ladderPool(rules: string, format: string, players: number): string {
  if (!format) return `gin/${rules}`;
  if (format === "three-player" || format === "teams") return format;
  if ((format === "gin-7" || format === "rummy") && players) return `${format}/${players}`;
  console.error("--ladder: --format three-player, teams, or gin-7 / rummy with --players");
  process.exit(2);
}

/** Queues the account in the pool's ladder and waits for its seat: the LadderMatched (game,
 * seat, seat token, everyone at the table). Prints where it stands once. */
async function joinLadder(ladder: LadderServiceClient, pool: string, md: grpc.Metadata): Promise<LadderMatched> {
  const stream = ladder.JoinLadder({ pool }, md);
  let told = false;
  for await (const m of stream as AsyncIterable<JoinLadderResponse>) {
    if (m.queued && !told) {
      told = true;
      const q = m.queued;
      console.log(`ladder ${q.pool}: rating ${q.rating.toFixed(0)} ±${q.deviation.toFixed(0)}` +
        `${q.provisional ? " provisional" : ""} after ${q.games} rated games; ${q.waiting} waiting`);
    } else if (m.matched) {
      stream.cancel();
      return m.matched;
    }
  }
  throw new CheckFailed("the ladder's stream ended before seating us");
}

async function main() {
  const { values: a } = parseArgs({
    options: {
      server: { type: "string", default: process.env.GIN_SERVER ?? "127.0.0.1:50051" },
      "vs-bot": { type: "string", default: "simple" },
      games: { type: "string", default: "1" },
      rules: { type: "string", default: "standard" }, // a preset (two-player gin)
      // A table of another format: a preset (three-player, teams, gin-7, rummy) or a format as
      // a JSON document; the house bots take every other seat.
      format: { type: "string", default: "" },
      players: { type: "string", default: "0" }, // with --format: the table size (0: the format's own)
      name: { type: "string", default: "typescript-example" },
      // Send each game's first action with a stale expected_seq, to show the ABORTED resync.
      "stale-first-action": { type: "boolean", default: false },
      // Play as this account (gin_at_…; default GIN_ACCOUNT_TOKEN): its token goes with the
      // lobby calls, so each seat is the account's.
      "account-token": { type: "string" },
      // Register a bot account NAME, print its token once to stderr, and play as it.
      register: { type: "string" },
      // Signed in: play the server's rated ladder (the pool of --rules, or --format and
      // --players) instead of house bots.
      ladder: { type: "boolean", default: false },
    },
  });
  if (a["account-token"] !== undefined && a.register !== undefined) {
    console.error("--account-token and --register: one or the other");
    process.exit(2);
  }
  const accountToken = a["account-token"] ?? (process.env.GIN_ACCOUNT_TOKEN || undefined);
  if (accountToken !== undefined && !accountToken.startsWith(ACCOUNT_TOKEN_PREFIX)) {
    console.error(`--account-token: not an account token (those start with ${ACCOUNT_TOKEN_PREFIX})`);
    process.exit(2);
  }
  const target = a.server.replace(/^http:\/\//, "");
  const games = Number(a.games);
  const players = Number(a.players);
  if (players && !a.format) {
    console.error("--players needs --format (two-player gin has two)");
    process.exit(2);
  }
  // Two-player gin takes `rules`; another format takes `format` and `players` (not both).
  const table = a.format ? { format: a.format, players } : { rules: { preset: a.rules } };
  const def = protoLoader.loadSync(
    ["gin/v1/game.proto", "gin/v1/lobby.proto", "gin/v1/account.proto", "gin/v1/ladder.proto"], LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as unknown as GameProto & LobbyProto & AccountProto & LadderProto;
  const creds = grpc.credentials.createInsecure();
  const lobby: LobbyServiceClient = new pkg.gin.v1.LobbyService(target, creds);
  const game: GameServiceClient = new pkg.gin.v1.GameService(target, creds);
  const accounts: AccountServiceClient = new pkg.gin.v1.AccountService(target, creds);
  const ladder: LadderServiceClient = new pkg.gin.v1.LadderService(target, creds);
  await new Promise<void>((resolve, reject) =>
    lobby.waitForReady(Date.now() + 15_000, (e) => (e ? reject(e) : resolve())));
  const token = a.register !== undefined ? await register(accounts, a.register) : accountToken;
  // Signed in: the account token goes with the lobby calls (the seat is the account's) and
  // with the checks; the seat token still plays the seat.
  const accountMd = new grpc.Metadata();
  if (token) accountMd.set("authorization", `Bearer ${token}`);
  if (a.ladder && !token) {
    console.error("--ladder: the ladder is an account's: --account-token, GIN_ACCOUNT_TOKEN or --register");
    process.exit(2);
  }
  const pool = a.ladder ? ladderPool(a.rules, a.format, players) : null;
  let account: string | null = null;
  const started = Date.now();
  let won = 0;
  for (let i = 0; i < games; i++) {
    let against = `house bot ${a["vs-bot"]}`;
    let created: { game_id: string; seat: number; seat_token: string };
    if (pool !== null) {
      const m = await joinLadder(ladder, pool, accountMd);
      created = m;
      against = "ladder: " + m.seats.filter((_, k) => k !== m.seat)
        .map((s) => `${s.name} (${s.rating.toFixed(0)})`).join(", ");
    } else {
      created = await unary<object, { game_id: string; seat: number; seat_token: string }>(
        lobby as unknown as grpc.Client, "CreateGame",
        { ...table, join: true, name: a.name, house_bot: a["vs-bot"] }, accountMd, true);
    }
    const { game_id: gameId, seat, seat_token: seatToken } = created;
    const { snapshot: snap } = await unary<object, { snapshot: GameSnapshot }>(
      game as unknown as grpc.Client, "GetGame", { game_id: gameId });
    const p = await play(game, gameId, seat, seatToken, a["stale-first-action"], snap.format?.kind === "teams");
    const r = p.result;
    let signed = "";
    if (token) {
      account = await checkAccount(game, accounts, gameId, seat, accountMd);
      signed = `; account ${account} (bot) checked`;
    }
    const f = snap.format;
    if (f && f.kind !== "gin") {
      const c = await checkTable(game, gameId, seat, r, snap, p);
      const win = r.winners.includes(seat);
      if (win) won++;
      const team = snap.seats[seat].team;
      console.log(
        `[${i + 1}/${games}] ${gameId} seat ${seat} of ${f.players} (${f.kind}${team === undefined ? "" : `, team ${team}`}) ` +
          `vs ${against}: ${win ? "won" : "lost"}, place ${r.places[seat]}, ` +
          `totals [${r.table_totals.join(", ")}]` +
          `${r.team_totals.length > 0 ? `, team totals [${r.team_totals.join(", ")}]` : ""} ` +
          `(${p.hands} hands, ${p.actions} actions, ${p.aborted} aborted; ` +
          `record checked: ${c.moves} moves of seat ${seat}, ${c.reveals} deal reveals${signed})`,
      );
      continue;
    }
    const reveals = await check(game, gameId, p.result, snap.rules?.target ?? 0);
    const verdict = r.winner === undefined ? "drew" : r.winner === seat ? "won" : "lost";
    if (verdict === "won") won++;
    console.log(
      `[${i + 1}/${games}] ${gameId} seat ${seat} vs ${against}: ${verdict} ` +
        `${r.totals[seat]}-${r.totals[1 - seat]} (${p.hands} hands, ${p.actions} actions, ${p.aborted} aborted; ` +
        `record checked, ${reveals} deal reveals${signed})`,
    );
  }
  const signed = account === null ? "" :
    `; signed in as bot account ${account}: every seat its, every game in its ListPlayerGames`;
  console.log(
    `${games} games: ${won} won, ${games - won} lost or drawn; every result checked against GetRecord${signed}; ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  lobby.close();
  game.close();
  accounts.close();
  ladder.close();
}

main().catch((e) => {
  if (e instanceof CheckFailed) console.error(`check failed: ${e.message}`);
  else if (e && typeof e.code === "number") console.error(`error: ${grpc.status[e.code]}: ${e.details}`);
  else console.error(e);
  process.exit(1);
});
