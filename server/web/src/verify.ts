// A finished game's deals checked in the browser against their commitments, as `gin verify`
// does, at every format: for each hand, SHA-256("gin-deal-v1\n" + the revealed deck, cards
// joined by spaces, top first + "\n" + the salt in lower-case hex) must be the commitment
// revealed with it, that commitment the one this page saw published when the hand was dealt
// (when it was watching then), and the revealed deck the one the game's record names. The
// game's seed keys every deck and every shuffle of a pile turned into the stock (gin at one
// table, rummy): SHA-256("gin-seed-v1\n" + the record's seed in decimal + "\n" + the seed's
// salt in hex) must be the seed commitment revealed with the record, and that the one this
// page saw published with the deals. (Replaying the record's moves, and so each turn of the
// pile, is `gin verify`'s.) While the seed is kept secret (a tournament's game, until the
// tournament is over) the deals are checked against their commitments only, and the verdict
// says the rest waits. SHA-256 is computed here (not with crypto.subtle, which a page served
// over plain HTTP to another machine does not have).

import * as api from "./api.js";

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  const bits = data.length * 8;
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);
  const hs = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, h] = hs;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    hs[0] += a; hs[1] += b; hs[2] += c; hs[3] += d; hs[4] += e; hs[5] += f; hs[6] += g; hs[7] += h;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  hs.forEach((x, i) => ov.setUint32(i * 4, x));
  return out;
}

export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The commitment to `deck` (top first) under `salt`. */
export function commitment(deck: readonly string[], salt: Uint8Array): string {
  return hex(sha256(new TextEncoder().encode(`gin-deal-v1\n${deck.join(" ")}\n${hex(salt)}`)));
}

const PUBLISHED = "gin.published.";

/**
 * Remembers the commitment published when hand `hand` of game `id` was dealt, and the seed
 * commitment published with it (kept under "seed"; a different one at a later deal under
 * "seed-changed").
 */
export function notePublished(id: string, hand: number, c: Uint8Array, seed: Uint8Array = new Uint8Array()): void {
  if (c.length === 0) return;
  const key = PUBLISHED + id;
  const all = JSON.parse(localStorage.getItem(key) ?? "{}") as Record<string, string>;
  const before = JSON.stringify(all);
  all[hand] = hex(c);
  if (seed.length > 0) {
    if (all.seed === undefined) all.seed = hex(seed);
    else if (all.seed !== hex(seed)) all["seed-changed"] = hex(seed);
  }
  const after = JSON.stringify(all);
  if (after !== before) localStorage.setItem(key, after);
}

/** The commitment to `seed` under `salt`. */
export function seedCommitment(seed: bigint, salt: Uint8Array): string {
  return hex(sha256(new TextEncoder().encode(`gin-seed-v1\n${seed}\n${hex(salt)}`)));
}

const RANKS = "A23456789TJQK";

/**
 * The deck a seed deals for hand `hand`: the engine's documented algorithm (engine/src/deal.rs):
 * ChaCha8 keyed by the seed (little-endian, the rest of the key zero), the hand number as its
 * 64-bit nonce, a 64-bit block counter from 0; Fisher–Yates from the end over the deck in
 * clubs-diamonds-hearts-spades, ace-to-king order, each index drawn with Lemire's
 * multiply-and-reject on one 32-bit word.
 */
export function shuffledDeck(seed: bigint, hand: bigint): string[] {
  const key = [Number(seed & 0xffffffffn), Number((seed >> 32n) & 0xffffffffn), 0, 0, 0, 0, 0, 0];
  const nonce = [Number(hand & 0xffffffffn), Number((hand >> 32n) & 0xffffffffn)];
  let counter = 0n;
  let block = new Uint32Array(16);
  let at = 16;
  const rotl = (x: number, n: number) => ((x << n) | (x >>> (32 - n))) >>> 0;
  const next = (): number => {
    if (at === 16) {
      const input = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...key,
        Number(counter & 0xffffffffn), Number(counter >> 32n), nonce[0], nonce[1]]);
      const x = input.slice();
      const qr = (a: number, b: number, c: number, d: number) => {
        x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 16);
        x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 12);
        x[a] += x[b]; x[d] = rotl(x[d] ^ x[a], 8);
        x[c] += x[d]; x[b] = rotl(x[b] ^ x[c], 7);
      };
      for (let r = 0; r < 4; r++) {
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
      }
      block = x.map((v, i) => (v + input[i]) >>> 0);
      counter += 1n;
      at = 0;
    }
    return block[at++];
  };
  const deck: string[] = [];
  for (const suit of "CDHS") for (const rank of RANKS) deck.push(rank + suit);
  for (let i = 51; i >= 1; i--) {
    const n = i + 1;
    const threshold = 2 ** 32 % n;
    let m = next() * n;
    while (m % 2 ** 32 < threshold) m = next() * n;
    const j = Math.floor(m / 2 ** 32);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The game seed a record names (read from the text: a u64 does not fit a JS number). */
function recordSeed(json: string): bigint | undefined {
  const m = /"seed"\s*:\s*(\d+)/.exec(json);
  return m ? BigInt(m[1]) : undefined;
}

/** The decks a record names, in order (two-player: `setup.decks`; other formats: any `decks`). */
function recordDecks(record: unknown): string[] | undefined {
  if (record === null || typeof record !== "object") return undefined;
  for (const [k, v] of Object.entries(record as Record<string, unknown>)) {
    if (k === "decks" && Array.isArray(v)) return v.map((d) => (Array.isArray(d) ? d.join(" ") : String(d)));
    const inner = recordDecks(v);
    if (inner) return inner;
  }
  return undefined;
}

export interface Verdict {
  /** Every check made and passed. */
  ok: boolean;
  /** No check failed, but some wait for the seed, not revealed yet. */
  pending: boolean;
  /** The verdict in a sentence. */
  headline: string;
  lines: string[];
}

/** Checks the seed of a record: its problems, and what was checked. */
function checkSeed(
  r: { seedSalt: Uint8Array; seedCommitment: Uint8Array },
  seed: bigint | undefined,
  published: Record<string, string>,
): { problems: string[]; checked: string; revealed: boolean } {
  const problems: string[] = [];
  const c = hex(r.seedCommitment);
  if (c === "") return { problems: ["the server gave no commitment to the seed"], checked: "", revealed: true };
  if (published.seed !== undefined && published.seed !== c) problems.push(`the seed commitment published with the deals was ${published.seed.slice(0, 12)}…`);
  if (published["seed-changed"] !== undefined) problems.push(`a later deal published another seed commitment, ${published["seed-changed"].slice(0, 12)}…`);
  if (r.seedSalt.length === 0) return { problems, checked: "", revealed: false };
  if (seed === undefined) problems.push("the record names no seed");
  else {
    const mine = seedCommitment(seed, r.seedSalt);
    if (mine !== c) problems.push(`the record's seed and the salt hash to ${mine.slice(0, 12)}…, not to the seed commitment ${c.slice(0, 12)}…`);
  }
  const checked = ["hash", published.seed !== undefined ? "as published with the deals" : ""].filter(Boolean).join(", ");
  return { problems, checked, revealed: true };
}

/** Checks the seed and every revealed hand of finished game `id` (see the module docs). */
export async function verifyGame(id: string): Promise<Verdict> {
  const r = await api.game.getRecord({ gameId: id });
  const published = JSON.parse(localStorage.getItem(PUBLISHED + id) ?? "{}") as Record<string, string>;
  let decks: string[] | undefined;
  try {
    decks = recordDecks(JSON.parse(r.recordJson));
  } catch {
    decks = undefined;
  }
  const seed = recordSeed(r.recordJson);
  const s = checkSeed(r, seed, published);
  /** The deck the record plays hand `i` from: an explicit one, else the seed's (once revealed). */
  const recorded = (i: number): string | undefined =>
    decks?.[i] ?? (seed !== undefined && s.revealed ? shuffledDeck(seed, BigInt(i)).join(" ") : undefined);
  const lines: string[] = [];
  let ok = r.reveals.length > 0;
  if (s.problems.length) {
    ok = false;
    lines.push(`seed: FAILED: ${s.problems.join("; ")}`);
  } else if (s.revealed) {
    lines.push(`seed: verified (${s.checked}) · commitment ${hex(r.seedCommitment).slice(0, 16)}…: it keys every deck and every shuffle of a pile turned into the stock`);
  } else {
    lines.push("seed: not revealed yet (a tournament's seed is, once the tournament is over): each deal is checked against its commitment; the rest waits for the seed");
  }
  if (r.reveals.length === 0) lines.push("no hand was revealed: nothing to check");
  r.reveals.forEach((rv, i) => {
    const problems: string[] = [];
    const mine = commitment(rv.deck, rv.salt);
    if (mine !== hex(rv.commitment)) problems.push(`the deck and salt hash to ${mine.slice(0, 12)}…, not to the commitment ${hex(rv.commitment).slice(0, 12)}…`);
    const seen = published[i];
    if (seen !== undefined && seen !== hex(rv.commitment)) problems.push(`the commitment published at the deal was ${seen.slice(0, 12)}…`);
    const deck = recorded(i);
    if (deck !== undefined && deck !== rv.deck.join(" ")) problems.push("the record was played from another deck");
    if (problems.length) ok = false;
    const checks = ["hash", seen !== undefined ? "as published" : "", deck !== undefined ? "the record's deck" : ""].filter(Boolean).join(", ");
    lines.push(`hand ${i + 1}: ${problems.length ? `FAILED: ${problems.join("; ")}` : `verified (${checks})`} · commitment ${hex(rv.commitment).slice(0, 16)}…`);
  });
  const n = r.reveals.length;
  const pending = ok && !s.revealed;
  const headline = !ok ? "Verification FAILED." : pending ? `${n} deals checked against their commitments; the seed is not revealed yet.` : `All ${n} deals verified.`;
  return { ok: ok && s.revealed, pending, headline, lines };
}
