// A small Gin Rummy bot in TypeScript: @grpc/grpc-js, with proto/ loaded at run time by
// @grpc/proto-loader (and types generated from the same files by proto-loader-gen-types).
//
// It creates games against one of the server's house bots, watches its seat's event stream,
// and plays the legal actions the server sends with each of its turns (with expected_seq,
// resyncing on ABORTED), to game over. After each game it reads the record back (GetRecord)
// and checks that it agrees with the game-over event: a winner, the target reached, the same
// totals. Exit status 0 only if every game finished and every check passed.
//
//     node dist/bot.js --server 127.0.0.1:50051 --vs-bot simple --games 3

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import type { ProtoGrpcType as GameProto } from "./generated/game.js";
import type { ProtoGrpcType as LobbyProto } from "./generated/lobby.js";
import type { GameServiceClient } from "./generated/gin/v1/GameService.js";
import type { LobbyServiceClient } from "./generated/gin/v1/LobbyService.js";
import type { GameResult__Output as GameResult } from "./generated/gin/v1/GameResult.js";
import type { LegalAction__Output as LegalAction } from "./generated/gin/v1/LegalAction.js";
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

/** A unary call as a promise. */
function unary<Req, Res>(
  client: grpc.Client,
  method: string,
  req: Req,
  md = new grpc.Metadata(),
): Promise<Res> {
  const fn = (client as unknown as Record<string, Function>)[method].bind(client);
  const deadline = new Date(Date.now() + 20_000);
  return new Promise((resolve, reject) =>
    fn(req, md, { deadline }, (err: grpc.ServiceError | null, res: Res) => (err ? reject(err) : resolve(res))),
  );
}

/** Picks one of the legal actions the server sent: knock when we may (the least deadwood
 * first: gin), else the server's suggested best discard; draw from the stock, pass the
 * upcard. */
function choose(turn: TurnInfo): LegalAction {
  const legal = turn.legal_actions;
  const of = (kind: string) => legal.filter((a) => a.kind === kind);
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

interface Snapshot {
  seq: string;
  seat_to_act?: number;
  turn: TurnInfo | null;
}

/** Plays our turn: one of its legal actions with expected_seq = seq. On ABORTED (the seq is
 * stale: nothing was applied) it resyncs with GetGame: if it is still our turn, it decides
 * again from the snapshot's legal actions and seq; if not, the stream brings what happened.
 * Returns the seq the action was accepted at (or null) and the ABORTED refusals. */
async function act(
  games: GameServiceClient, gameId: string, seat: number, md: grpc.Metadata,
  turn: TurnInfo, seq: bigint, stale: boolean,
): Promise<{ done: bigint | null; aborted: number }> {
  let aborted = 0;
  for (;;) {
    try {
      await send(games, gameId, md, (stale ? seq - 1n : seq).toString(), choose(turn));
      return { done: seq, aborted };
    } catch (e) {
      if ((e as grpc.ServiceError).code !== grpc.status.ABORTED) throw e;
    }
    aborted++;
    stale = false;
    const { snapshot: snap } = await unary<object, { snapshot: Snapshot }>(
      games as unknown as grpc.Client, "GetGame", { game_id: gameId }, md);
    console.error(`  ABORTED at seq ${seq} (the game is at ${snap.seq}): resyncing`);
    if (snap.seat_to_act !== seat || !snap.turn) return { done: null, aborted };
    turn = snap.turn;
    seq = BigInt(snap.seq);
  }
}

/** Plays our seat to game over, resuming the stream after the last seq if it drops. With
 * staleFirst, the first action goes with a stale expected_seq, to show the resync. */
async function play(
  games: GameServiceClient, gameId: string, seat: number, token: string, staleFirst: boolean,
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
          if (snap.phase === "PHASE_GAME_OVER" && snap.result) {
            stream.cancel();
            return { result: snap.result, hands: snap.hands.length, actions, aborted };
          }
          if (snap.seat_to_act === seat && snap.turn) turn = snap.turn;
        } else if (msg.kind === "event" && msg.event) {
          const ev = msg.event;
          if (BigInt(ev.seq) <= lastSeq) continue; // already seen (after a resume)
          lastSeq = BigInt(ev.seq);
          if (ev.kind === "hand_ended") hands++;
          if (ev.kind === "game_over" && ev.game_over?.result) {
            stream.cancel();
            return { result: ev.game_over.result, hands, actions, aborted };
          }
          if (ev.kind === "turn_started" && ev.turn_started?.seat === seat && ev.turn_started.turn) {
            turn = ev.turn_started.turn;
          }
        }
        if (!turn || lastSeq <= actedAt) continue; // not our turn, a heartbeat, or played already
        const r = await act(games, gameId, seat, md, turn, lastSeq, staleFirst && actions === 0);
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

async function main() {
  const { values: a } = parseArgs({
    options: {
      server: { type: "string", default: process.env.GIN_SERVER ?? "127.0.0.1:50051" },
      "vs-bot": { type: "string", default: "simple" },
      games: { type: "string", default: "1" },
      rules: { type: "string", default: "standard" },
      name: { type: "string", default: "typescript-example" },
      // Send each game's first action with a stale expected_seq, to show the ABORTED resync.
      "stale-first-action": { type: "boolean", default: false },
    },
  });
  const target = a.server.replace(/^http:\/\//, "");
  const games = Number(a.games);
  const def = protoLoader.loadSync(["gin/v1/game.proto", "gin/v1/lobby.proto"], LOADER_OPTIONS);
  const pkg = grpc.loadPackageDefinition(def) as unknown as GameProto & LobbyProto;
  const creds = grpc.credentials.createInsecure();
  const lobby: LobbyServiceClient = new pkg.gin.v1.LobbyService(target, creds);
  const game: GameServiceClient = new pkg.gin.v1.GameService(target, creds);
  await new Promise<void>((resolve, reject) =>
    lobby.waitForReady(Date.now() + 15_000, (e) => (e ? reject(e) : resolve())));
  const started = Date.now();
  let won = 0;
  for (let i = 0; i < games; i++) {
    const created = await unary<object, { game_id: string; seat: number; seat_token: string }>(
      lobby as unknown as grpc.Client, "CreateGame",
      { rules: { preset: a.rules }, join: true, name: a.name, house_bot: a["vs-bot"] });
    const { game_id: gameId, seat, seat_token: token } = created;
    const snap = await unary<object, { snapshot: { rules: { target: number } } }>(
      game as unknown as grpc.Client, "GetGame", { game_id: gameId });
    const p = await play(game, gameId, seat, token, a["stale-first-action"]);
    const reveals = await check(game, gameId, p.result, snap.snapshot.rules.target);
    if (a["stale-first-action"] && p.aborted === 0) {
      throw new CheckFailed(`game ${gameId}: the stale first action was not refused with ABORTED`);
    }
    const r = p.result;
    const verdict = r.winner === undefined ? "drew" : r.winner === seat ? "won" : "lost";
    if (verdict === "won") won++;
    console.log(
      `[${i + 1}/${games}] ${gameId} seat ${seat} vs house bot ${a["vs-bot"]}: ${verdict} ` +
        `${r.totals[seat]}-${r.totals[1 - seat]} (${p.hands} hands, ${p.actions} actions, ${p.aborted} aborted; ` +
        `record checked, ${reveals} deal reveals)`,
    );
  }
  console.log(
    `${games} games: ${won} won, ${games - won} lost or drawn; every result checked against GetRecord; ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  lobby.close();
  game.close();
}

main().catch((e) => {
  if (e instanceof CheckFailed) console.error(`check failed: ${e.message}`);
  else if (e && typeof e.code === "number") console.error(`error: ${grpc.status[e.code]}: ${e.details}`);
  else console.error(e);
  process.exit(1);
});
