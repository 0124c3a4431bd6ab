// The server's gRPC-Web clients (same origin as the page), seat tokens kept per game in the
// browser, and refusals in words for people.

import { Code, ConnectError, createClient, type CallOptions, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { AccountService, type Account } from "./gen/gin/v1/account_pb.js";
import { ChallengeService } from "./gen/gin/v1/challenge_pb.js";
import { GameService } from "./gen/gin/v1/game_pb.js";
import { LadderService } from "./gen/gin/v1/ladder_pb.js";
import { LobbyService } from "./gen/gin/v1/lobby_pb.js";
import { RatingService } from "./gen/gin/v1/rating_pb.js";
import { TournamentService } from "./gen/gin/v1/tournament_pb.js";
import { AccountKind, type SeatInfo } from "./gen/gin/v1/types_pb.js";

const transport = createGrpcWebTransport({ baseUrl: location.origin });

export const game: Client<typeof GameService> = createClient(GameService, transport);
export const lobby: Client<typeof LobbyService> = createClient(LobbyService, transport);
export const tournaments: Client<typeof TournamentService> = createClient(TournamentService, transport);
export const accounts: Client<typeof AccountService> = createClient(AccountService, transport);
export const ratings: Client<typeof RatingService> = createClient(RatingService, transport);
/** Challenges: every call acts as the signed-in account (the session cookie). */
export const challenges: Client<typeof ChallengeService> = createClient(ChallengeService, transport);
/** The rated ladder: JoinLadder queues the signed-in account (the session cookie). */
export const ladder: Client<typeof LadderService> = createClient(LadderService, transport);

// The session: the server keeps it in an HttpOnly cookie set by `POST /session` (the page
// never sees the token) and takes it as the account on the page's gRPC-Web calls.

/** Who is signed in here (`undefined`: a guest), as WhoAmI last said. */
export let me: Account | undefined;

/** Asks the server who the session is (a guest without one, or once it is revoked). */
export async function whoAmI(): Promise<Account | undefined> {
  try {
    me = (await accounts.whoAmI({})).account;
  } catch (e) {
    if (ConnectError.from(e).code !== Code.Unauthenticated) throw e;
    me = undefined;
  }
  return me;
}

/** Signs in (`register`: makes a person's account first); throws the server's words. */
export async function signIn(name: string, password: string, register = false): Promise<Account | undefined> {
  const r = await fetch(register ? "/session/register" : "/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password }),
    credentials: "same-origin",
  });
  if (!r.ok) {
    const body = (await r.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `HTTP ${r.status}`);
  }
  return whoAmI();
}

/**
 * Changes the password (`POST /session/password`): the server ends every session and sets the
 * cookie to a new one, so the page stays signed in without ever seeing a token. Throws the
 * server's words.
 */
export async function changePassword(current: string, next: string): Promise<void> {
  const r = await fetch("/session/password", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ current_password: current, new_password: next }),
    credentials: "same-origin",
  });
  if (!r.ok) {
    const body = (await r.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `HTTP ${r.status}`);
  }
  await whoAmI();
}

/** Ends the session at the server (its token revoked, the cookie cleared). */
export async function signOut(): Promise<void> {
  const r = await fetch("/session", { method: "DELETE", credentials: "same-origin" });
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  me = undefined;
}

/** What a seat's holder is, after its name: an account's kind, a guest, a deleted account. */
export function seatTag(x: SeatInfo): string {
  if (!x.taken) return "";
  if (x.accountDeleted) return " (deleted)";
  if (x.bot || x.accountKind === AccountKind.BOT) return " (bot)";
  if (x.entrant) return " (entrant)";
  return x.account ? "" : " (guest)";
}

/** A seat this browser holds: the token the server gave when it seated us. */
export interface Seat {
  seat: number;
  token: string;
}

const SEATS = "gin.seats";

function seats(): Record<string, Seat> {
  try {
    return JSON.parse(localStorage.getItem(SEATS) ?? "{}") as Record<string, Seat>;
  } catch {
    return {};
  }
}

/** The seat this browser holds in game `id`, if any (kept across reloads). */
export function seatOf(id: string): Seat | undefined {
  return seats()[id];
}

/** Remembers our seat in game `id`. */
export function keepSeat(id: string, seat: Seat): void {
  const all = seats();
  all[id] = seat;
  localStorage.setItem(SEATS, JSON.stringify(all));
}

/** The call options that act as seat `s` (none: a spectator). */
export function as(s: Seat | undefined, signal?: AbortSignal): CallOptions {
  const headers: Record<string, string> = s ? { authorization: `Bearer ${s.token}` } : {};
  return { headers, signal };
}

/** The player's name, kept in the browser. */
export function playerName(): string {
  return localStorage.getItem("gin.name") ?? "";
}

export function keepName(name: string): void {
  localStorage.setItem("gin.name", name);
}

/** A refused or failed call in words, as the terminal client says it. */
export function explain(e: unknown): string {
  const err = ConnectError.from(e);
  const m = err.rawMessage;
  switch (err.code) {
    case Code.Aborted:
      return "the game moved on before your move arrived; nothing was played";
    case Code.FailedPrecondition:
      return `refused: ${m}`;
    case Code.InvalidArgument:
      return `invalid: ${m}`;
    case Code.NotFound:
      return `not found: ${m}`;
    case Code.PermissionDenied:
    case Code.Unauthenticated:
      return `not allowed: ${m}`;
    case Code.ResourceExhausted:
      return `the server is busy: ${m}`;
    case Code.Unavailable:
    case Code.DeadlineExceeded:
      return `the server cannot be reached: ${m}`;
    default:
      return `server error (${Code[err.code]}): ${m}`;
  }
}

/** Whether a failed call is worth trying again (the server or the network, not a refusal). */
export function transient(e: unknown): boolean {
  const c = ConnectError.from(e).code;
  return c === Code.Unavailable || c === Code.Unknown || c === Code.Internal || c === Code.ResourceExhausted || c === Code.DeadlineExceeded;
}

/**
 * Sends an action by `call` (with the same `expected_seq` each time, so it is played at most
 * once): answered UNAVAILABLE (the server cannot take it now, as when a game's server moved),
 * it is sent again after 0.2 s, doubling, up to `tries` times in all, `waiting` told before
 * each wait. Returns how many times it was sent; throws the last error otherwise.
 */
export async function sendRetrying(call: () => Promise<unknown>, waiting: (e: unknown) => void, signal?: AbortSignal, tries = 6): Promise<number> {
  let backoff = 200;
  for (let sent = 1; ; sent++) {
    try {
      await call();
      return sent;
    } catch (e) {
      if (ConnectError.from(e).code !== Code.Unavailable || sent >= tries || signal?.aborted) {
        throw Object.assign(ConnectError.from(e), { sent });
      }
      waiting(e);
      await new Promise((r) => setTimeout(r, backoff));
      backoff *= 2;
    }
  }
}

/** How many times [`sendRetrying`] sent an action that failed in the end (1: once). */
export function timesSent(e: unknown): number {
  return (e as { sent?: number }).sent ?? 1;
}

/** How [`follow`] reports the connection and asks whether to go on. */
export interface Follower<T> {
  /** Aborts the stream for good. */
  signal: AbortSignal;
  /** Each message, in order. */
  message(m: T): void;
  /** "" once messages come again; the problem while reconnecting; a permanent error. */
  connection(text: string): void;
  /** Whether anything came yet (a refusal before that is permanent: a wrong id). */
  started(): boolean;
  /** Whether a stream that ended did so because there is nothing more to follow. */
  over(): boolean;
}

/**
 * Reads a server stream opened by `open` (called again for each attempt, so it can resume
 * where the last one stopped) until it ends with `over()` or `signal` aborts; a dropped
 * stream is opened again after a backoff of 0.2 s, doubling up to 5 s.
 */
export async function follow<T>(open: () => AsyncIterable<T>, f: Follower<T>): Promise<void> {
  let backoff = 200;
  let down = true;
  while (!f.signal.aborted) {
    try {
      for await (const m of open()) {
        backoff = 200;
        if (down) {
          down = false;
          f.connection("");
        }
        f.message(m);
      }
      if (f.over()) return;
    } catch (e) {
      if (f.signal.aborted) return;
      if (!transient(e) && !f.started()) {
        f.connection(explain(e));
        return;
      }
      down = true;
      f.connection(`reconnecting… (${explain(e)})`);
    }
    await new Promise((r) => setTimeout(r, backoff));
    backoff = Math.min(backoff * 2, 5000);
  }
}
