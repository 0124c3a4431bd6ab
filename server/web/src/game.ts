// One game in the browser: played from a seat this browser holds, or watched. The page keeps
// a WatchGame stream open (resuming after the last seq it saw when it drops, like `gin`) and
// draws every change from a fresh snapshot of what this viewer may see; the seat's legal
// actions come with it, so the page knows no rules of its own.

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import * as api from "./api.js";
import { backElement, byRank, bySuit, cardElement, face, faces } from "./cards.js";
import { confirmDialog, fill, h, type Child } from "./dom.js";
import { notePublished, verifyGame, type Verdict } from "./verify.js";
import { DrawRequestSchema, type GameSnapshot } from "./gen/gin/v1/game_pb.js";
import { ActionKind, DrawSource, EndKind, GameEndReason, Phase, type Arrangement, type LegalAction, type TableMeld } from "./gen/gin/v1/types_pb.js";

const END_WORDS: Record<number, string> = {
  [EndKind.DEAD]: "dead hand",
  [EndKind.KNOCK]: "knock",
  [EndKind.UNDERCUT]: "undercut",
  [EndKind.GIN]: "gin",
  [EndKind.BIG_GIN]: "big gin",
  [EndKind.DEFENCE]: "defence",
  [EndKind.WENT_OUT]: "went out",
  [EndKind.RUMMY]: "rummy",
  [EndKind.TURN_LIMIT]: "dead hand at the turn limit, no score",
};

/** How the hand is ordered: melds grouped first (the rest by suit), by suit, by rank. */
type Sort = "melds" | "suit" | "rank";
const SORTS: Sort[] = ["melds", "suit", "rank"];
const SORT_WORDS: Record<Sort, string> = { melds: "melds first", suit: "by suit", rank: "by rank" };

function loadSort(): Sort {
  const v = localStorage.getItem("gin.sort");
  return SORTS.find((x) => x === v) ?? "melds";
}

/** A signed total with a true minus sign ("−282", not "-282" that reads as a dash). */
function signed(v: bigint | number): string {
  return v < 0 ? `−${-v}` : String(v);
}

/** One table's public side, the same shape for two-player gin and the other formats. */
interface TableView {
  seats: number[];
  dealer: number;
  handSizes: number[];
  known: Map<number, string[]>;
  pile: string[];
  stock: number;
  melds: TableMeld[];
  knockLimit: number;
}

function tablesOf(s: GameSnapshot): TableView[] {
  if (s.tables.length > 0) {
    return s.tables.map((t) => ({
      seats: t.seats,
      dealer: t.dealer,
      handSizes: t.handSizes,
      known: new Map(t.known.map((k) => [k.seat, k.cards])),
      pile: t.pile,
      stock: t.stockSize,
      melds: t.melds,
      knockLimit: t.knockLimit,
    }));
  }
  if (s.phase === Phase.WAITING_FOR_PLAYERS || s.handSizes.length === 0) return [];
  return [{
    seats: s.seats.map((x) => x.seat),
    dealer: s.dealer,
    handSizes: s.handSizes,
    known: new Map(s.known.map((k) => [k.seat, k.cards])),
    pile: s.pile,
    stock: s.stockSize,
    melds: [],
    knockLimit: s.knockLimit,
  }];
}

export class GameView {
  private snap: GameSnapshot | undefined;
  private lastSeq = 0n;
  private selected: string | undefined;
  private message = "";
  private busy = false;
  private verdict: Verdict | string | undefined;
  private refreshing: Promise<void> | undefined;
  private again = false;
  private connection = "connecting…";
  private readonly stop = new AbortController();
  private readonly seat: api.Seat | undefined;
  /** Finished hands seen so far (unset before the first snapshot: those are not held). */
  private handsSeen: number | undefined;
  /** The last hand's result is shown in place of the table until the viewer continues. */
  private held = false;
  private focusContinue = false;
  /** What the held result's view shows that may change (redrawn only when it does). */
  private heldKey = "";
  /** The order of the hand (`o` or the Order button, as the terminal's `o`). */
  private sort: Sort = loadSort();
  /** The melds the server last found in the viewer's hand (TurnInfo.best), and its hand. */
  private melds: string[][] = [];
  private meldsHand = -1;
  /** A card dragged by pointer (mouse, touch or pen): redraws wait until it is dropped. */
  private dragging = false;
  private redrawAfterDrag = false;
  private readonly keys = (ev: KeyboardEvent) => {
    if (ev.key !== "o" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement || document.querySelector("dialog[open]")) return;
    if (!this.root.querySelector("section.hand")) return;
    this.cycleSort();
  };

  constructor(private readonly root: HTMLElement, private readonly id: string, watchOnly: boolean) {
    this.seat = watchOnly ? undefined : api.seatOf(id);
  }

  /** Starts following the game; `close` stops. */
  start(): void {
    document.addEventListener("keydown", this.keys);
    void this.follow();
    this.render();
  }

  close(): void {
    this.stop.abort();
    document.removeEventListener("keydown", this.keys);
  }

  private cycleSort(): void {
    this.sort = SORTS[(SORTS.indexOf(this.sort) + 1) % SORTS.length];
    localStorage.setItem("gin.sort", this.sort);
    this.render();
  }

  private name(seat: number): string {
    const s = this.snap?.seats.find((x) => x.seat === seat);
    const n = s?.name || `seat ${seat}`;
    if (seat === this.snap?.viewerSeat) return `${n} (you)`;
    // Two house bots of one strategy share a name: the seat tells them apart.
    const twin = this.snap?.seats.some((x) => x.seat !== seat && x.name === s?.name);
    return twin ? `${n} (seat ${seat})` : n;
  }

  /** The stream, reopened after a drop from the last seq seen; each message schedules a redraw. */
  private async follow(): Promise<void> {
    await api.follow(() => api.game.watchGame({ gameId: this.id, resumeAfterSeq: this.lastSeq }, api.as(this.seat, this.stop.signal)), {
      signal: this.stop.signal,
      message: (m) => {
        if (m.kind.case === "snapshot") {
          this.take(m.kind.value, true);
        } else if (m.kind.case === "event") {
          if (m.kind.value.seq > this.lastSeq) this.lastSeq = m.kind.value.seq;
          const k = m.kind.value.kind;
          if (k.case === "handDealt") notePublished(this.id, k.value.handNumber, k.value.commitment, k.value.seedCommitment);
          this.refresh();
        }
      },
      connection: (text) => {
        this.connection = text;
        this.render();
      },
      started: () => this.snap !== undefined,
      over: () => this.snap?.phase === Phase.GAME_OVER,
    });
  }


  /** Takes a snapshot; `changed`: something else on the page changed (redraw anyway). */
  private take(s: GameSnapshot, changed = false): void {
    // An older snapshot, or the same one read again (coalesced refreshes): nothing to redraw,
    // and a redraw would replace the buttons under the player's pointer.
    if (this.snap && (s.seq < this.snap.seq || (s.seq === this.snap.seq && !changed))) return;
    this.snap = s;
    if (s.seq > this.lastSeq) this.lastSeq = s.seq;
    if (s.phase !== Phase.WAITING_FOR_PLAYERS && s.phase !== Phase.GAME_OVER) notePublished(this.id, s.handNumber, s.dealCommitment);
    const hand = s.hand;
    if (this.selected && !hand.includes(this.selected)) this.selected = undefined;
    // A hand that ended since the last snapshot: its result stays until the viewer continues
    // (the next hand is dealt at once), as the terminal's "Space: continue".
    const finished = s.hands.length + s.tableHands.length;
    if (this.handsSeen === undefined) {
      this.handsSeen = finished;
    } else if (finished > this.handsSeen) {
      this.handsSeen = finished;
      this.held = s.phase !== Phase.GAME_OVER;
      this.focusContinue = this.held;
    }
    if (s.phase === Phase.GAME_OVER) this.held = false;
    if (s.turn?.best) {
      this.melds = s.turn.best.melds.map((m) => m.cards);
      this.meldsHand = s.handNumber;
    }
    this.render();
  }

  /** A fresh snapshot; calls that arrive while one is in flight ask for one more after it. */
  private refresh(): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          const r = await api.game.getGame({ gameId: this.id }, api.as(this.seat, this.stop.signal));
          const wasDown = this.connection !== "";
          this.connection = "";
          if (r.snapshot) this.take(r.snapshot, wasDown);
        } catch (e) {
          if (this.stop.signal.aborted) return;
          this.connection = `reconnecting… (${api.explain(e)})`;
          this.render();
          await new Promise((r) => setTimeout(r, 500));
          this.again = true;
        }
      } while (this.again && !this.stop.signal.aborted);
    })().finally(() => {
      this.refreshing = undefined;
    });
  }

  /**
   * Sends one action; a refusal is shown and the game is read again. Answered UNAVAILABLE,
   * the same action (same expected seq) is sent again after a backoff ([`api.sendRetrying`]),
   * and the game is then read afresh (the stream resumes on its own).
   */
  private async act(what: string, call: (seq: bigint, opts: ReturnType<typeof api.as>) => Promise<unknown>): Promise<void> {
    if (this.busy || !this.snap) return;
    this.busy = true;
    this.message = what + "…";
    this.render();
    const seq = this.lastSeq;
    try {
      await api.sendRetrying(() => call(seq, api.as(this.seat)), (e) => {
        this.message = `${what}: ${api.explain(e)}; trying again…`;
        this.render();
      }, this.stop.signal);
      this.message = "";
      this.selected = undefined;
    } catch (e) {
      // Sent again after UNAVAILABLE and then told the game moved on: the first one may have
      // been played after all. The fresh snapshot read below shows what happened.
      const moved = api.timesSent(e) > 1 && ConnectError.from(e).code === Code.Aborted;
      this.message = moved ? "" : api.explain(e);
    } finally {
      this.busy = false;
      this.refresh();
      this.render();
    }
  }

  private legal(): LegalAction[] {
    return this.snap?.turn?.legalActions ?? [];
  }

  private myTurn(): boolean {
    const s = this.snap;
    if (!s || s.viewerSeat === undefined) return false;
    return s.seatsToAct.length > 0 ? s.seatsToAct.includes(s.viewerSeat) : s.seatToAct === s.viewerSeat;
  }

  private discard(card: string): void {
    void this.act(`discarding ${face(card)}`, (seq, o) => api.game.discard({ gameId: this.id, expectedSeq: seq, card }, o));
  }

  private async knock(a: LegalAction): Promise<void> {
    const gin = a.deadwood === 0;
    const q = gin
      ? `Go gin, discarding ${face(a.card)} face down?`
      : `Knock, discarding ${face(a.card)} face down, with ${a.deadwood} deadwood?`;
    if (!(await confirmDialog(q, gin ? "Gin" : "Knock"))) return;
    await this.act(gin ? "going gin" : "knocking", (seq, o) => api.game.knock({ gameId: this.id, expectedSeq: seq, discard: a.card }, o));
  }

  /**
   * Why `card` may not be discarded now, when the viewer is to discard (or knock) and may
   * not discard it; else undefined (the server's legal actions decide, the words are the
   * terminal's).
   */
  private refusal(card: string): string | undefined {
    const legal = this.legal();
    if (!legal.some((a) => a.kind === ActionKind.DISCARD || a.kind === ActionKind.KNOCK)) return undefined;
    if (legal.some((a) => (a.kind === ActionKind.DISCARD || a.kind === ActionKind.KNOCK) && a.card === card)) return undefined;
    if (card === this.snap?.takenFromPile) return `${face(card)} was just taken from the pile: discard another card`;
    return `${face(card)} cannot be discarded now`;
  }

  /** A click on a card of the hand: select it, or play it when it was selected already. */
  private clickCard(card: string): void {
    const why = this.refusal(card);
    if (why) {
      this.selected = undefined;
      this.message = why;
      this.render();
      return;
    }
    if (!this.busy) this.message = "";
    const canDiscard = this.legal().some((a) => a.kind === ActionKind.DISCARD && a.card === card);
    if (this.selected === card && canDiscard) {
      this.discard(card);
      return;
    }
    this.selected = this.selected === card ? undefined : card;
    this.render();
  }

  /** A card of the hand dropped on the pile: discarded, or the reason it may not be. */
  private dropOnPile(card: string): void {
    const why = this.refusal(card);
    if (why) {
      this.message = why;
      this.render();
    } else if (this.legal().some((a) => a.kind === ActionKind.DISCARD && a.card === card)) {
      this.discard(card);
    }
  }

  /**
   * Lets `el` (card `card` of the hand) be dragged onto the pile with any pointer: mouse,
   * touch or pen. A copy follows the pointer; a move under 8 px is a click.
   */
  private draggable(el: HTMLElement, card: string): void {
    el.classList.add("draggable");
    // A touch that dragged is the page's own: no tap or gesture of the browser's after it.
    let lifted = false;
    /** What is left to do once a drag is over: drop the card, redraw. */
    let finish: (() => void) | undefined;
    const settle = () => {
      const f = finish;
      finish = undefined;
      f?.();
    };
    const consumed = (ev: TouchEvent) => {
      if (lifted && ev.cancelable) ev.preventDefault();
      if (ev.type === "touchend") {
        lifted = false;
        settle();
      }
    };
    el.addEventListener("touchmove", consumed, { passive: false });
    el.addEventListener("touchend", consumed, { passive: false });
    el.addEventListener("pointerdown", (down: PointerEvent) => {
      if (down.button !== 0 || this.busy) return;
      const id = down.pointerId;
      let ghost: HTMLElement | undefined;
      const over = (e: PointerEvent) => !!document.elementFromPoint(e.clientX, e.clientY)?.closest(".drop-pile");
      const end = (e: PointerEvent, dropped: boolean) => {
        if (e.pointerId !== id) return;
        el.removeEventListener("pointermove", move);
        el.removeEventListener("pointerup", up);
        el.removeEventListener("pointercancel", cancel);
        if (!ghost) return;
        ghost.remove();
        el.classList.remove("lifted");
        document.querySelector(".drop-pile")?.classList.remove("drop-here");
        // The click a mouse makes at the end of a drag is not a click on the card.
        el.addEventListener("click", (c) => c.stopImmediatePropagation(), { capture: true, once: true });
        const on = dropped && over(e);
        finish = () => {
          this.dragging = false;
          if (on) this.dropOnPile(card);
          if (this.redrawAfterDrag || !on) {
            this.redrawAfterDrag = false;
            this.render();
          }
        };
        // The card stays on the page until the pointer's events are over: a mouse's click,
        // a touch's touchend (taken as the page's own above; without it, the browser takes
        // no tap after the drag), or 0.3 s if none comes.
        setTimeout(settle, e.pointerType === "touch" ? 300 : 0);
      };
      const move = (e: PointerEvent) => {
        if (e.pointerId !== id) return;
        if (!ghost) {
          if (Math.hypot(e.clientX - down.clientX, e.clientY - down.clientY) < 8) return;
          ghost = el.cloneNode(true) as HTMLElement;
          ghost.removeAttribute("id");
          ghost.setAttribute("aria-hidden", "true");
          ghost.classList.add("ghost");
          document.body.append(ghost);
          el.classList.add("lifted");
          this.dragging = true;
          lifted = true;
        }
        ghost.style.left = `${e.clientX - ghost.offsetWidth / 2}px`;
        ghost.style.top = `${e.clientY - ghost.offsetHeight / 2}px`;
        document.querySelector(".drop-pile")?.classList.toggle("drop-here", over(e));
      };
      const up = (e: PointerEvent) => end(e, true);
      const cancel = (e: PointerEvent) => end(e, false);
      try {
        el.setPointerCapture(id);
      } catch {
        // Not an active pointer (nothing to capture): moves still reach the card under it.
      }
      el.addEventListener("pointermove", move);
      el.addEventListener("pointerup", up);
      el.addEventListener("pointercancel", cancel);
    });
  }

  private render(): void {
    if (this.dragging) {
      this.redrawAfterDrag = true;
      return;
    }
    const s = this.snap;
    if (!s) {
      fill(this.root, h("p", { class: "status", role: "status" }, this.connection || "loading…"));
      return;
    }
    // For tests and tools: the seq drawn, and whether a move is in flight.
    this.root.dataset.seq = String(s.seq);
    this.root.dataset.busy = this.busy ? "1" : "";
    // While a result is held, the others' moves in the next hand change nothing shown: no
    // redraw, which would replace the Continue button under the player's pointer.
    const heldKey = this.held ? `${s.hands.length + s.tableHands.length}|${this.myTurn()}|${this.connection}|${this.message}|${this.busy}` : "";
    if (heldKey && heldKey === this.heldKey && !this.focusContinue && this.root.querySelector("#continue")) return;
    this.heldKey = heldKey;
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.id : "";
    const shown = this.root.querySelector("#message")?.textContent ?? "";
    const over = s.phase === Phase.GAME_OVER;
    // The message (a refusal, a move in flight) goes under the hand, where the player looks.
    const message = this.message && h("p", { class: `message ${this.busy ? "pending" : "refusal"}`, role: "alert", id: "message" }, this.message);
    fill(this.root,
      this.header(s),
      h("p", { class: "status", role: "status", "aria-live": "polite", id: "status" }, this.statusLine(s)),
      this.held
        ? [this.handOver(s), message]
        : [!over && this.tables(s), !over && this.handArea(s), message, this.actions(s), over && this.lastHand(s)],
      this.scoreSheet(s),
      over && this.verifyPanel());
    if (this.focusContinue) {
      this.focusContinue = false;
      const c = document.getElementById("continue");
      c?.focus();
      c?.scrollIntoView({ block: "nearest" });
    } else if (focused) {
      document.getElementById(focused)?.focus();
    }
    if (this.message && this.message !== shown) document.getElementById("message")?.scrollIntoView({ block: "nearest" });
  }

  /** The last hand's result in place of the table, until the viewer continues. */
  private handOver(s: GameSnapshot): HTMLElement {
    const clock = s.turnDeadlineUnixMs > 0n ? ` (clock: ${Math.max(0, Math.round((Number(s.turnDeadlineUnixMs) - Date.now()) / 1000))} s)` : "";
    return h("section", { class: "hand-over", id: "hand-over", "aria-label": "the hand's result" },
      this.lastHand(s),
      this.myTurn() && h("p", { class: "hint" }, `The next hand is dealt and it is your turn${clock}.`),
      h("button", { type: "button", class: "primary", id: "continue", onclick: () => {
        this.held = false;
        this.render();
        // The keyboard goes on from the top of the game (not from a move's button).
        this.root.focus({ preventScroll: true });
        document.getElementById("status")?.scrollIntoView({ block: "nearest" });
      } }, `Continue to hand ${s.handNumber + 1}`));
  }

  /** Checking the deals once the game is over. */
  private verifyPanel(): HTMLElement {
    const v = this.verdict;
    const run = async () => {
      this.verdict = "checking…";
      this.render();
      try {
        this.verdict = await verifyGame(this.id);
      } catch (e) {
        this.verdict = api.explain(e);
      }
      this.render();
    };
    return h("section", { class: "panel verify", "aria-label": "verify the deals" },
      h("button", { type: "button", id: "verify", onclick: () => void run() }, "Verify the deals"),
      " Each hand's deck was committed to when it was dealt; check them all here, in your browser.",
      typeof v === "string" && h("p", { role: "status" }, v),
      typeof v === "object" && h("div", { role: "status", id: "verdict" },
        h("p", { class: v.ok ? "verified" : "message" }, v.headline),
        h("ul", {}, v.lines.map((l) => h("li", {}, l)))));
  }

  private header(s: GameSnapshot): HTMLElement {
    const kind = s.format?.name || s.rules?.name || "gin";
    const link = `${location.origin}/#/join/${this.id}`;
    const open = s.phase === Phase.WAITING_FOR_PLAYERS && s.viewerSeat !== undefined;
    return h("header", { class: "game-header" },
      h("h2", {}, `Game ${this.id}`, h("span", { class: "tag" }, kind)),
      h("p", { class: "seats" }, s.seats.map((x) =>
        h("span", { class: "seat" + (x.taken ? "" : " empty") + (x.seat === s.viewerSeat ? " mine" : "") + (s.seatsToAct.includes(x.seat) || s.seatToAct === x.seat ? " acting" : "") },
          `${x.seat}: `, x.account ? h("a", { href: `#/player/${encodeURIComponent(x.account)}` }, this.name(x.seat)) : x.taken ? this.name(x.seat) : "(free)",
          `${api.seatTag(x)}${x.team !== undefined ? ` team ${x.team}` : ""}`))),
      open && h("p", { class: "share" }, "Share this link: ",
        h("input", { id: "share-link", readonly: true, value: link, "aria-label": "link to join this game", size: 40 }),
        h("button", { type: "button", onclick: () => void navigator.clipboard?.writeText(link) }, "Copy")),
      this.connection && h("p", { class: "connection" }, this.connection));
  }

  private statusLine(s: GameSnapshot): string {
    if (s.phase === Phase.GAME_OVER) return this.resultLine(s);
    if (this.held) return `${this.handTitle(s)}. Continue when ready.`;
    if (s.phase === Phase.WAITING_FOR_PLAYERS) return "Waiting for players…";
    const who = s.seatsToAct.length > 0 ? s.seatsToAct : s.seatToAct !== undefined ? [s.seatToAct] : [];
    const phase = s.phase === Phase.UPCARD_OFFER ? "take or pass the upcard" : s.phase === Phase.DRAW ? "draw" : "discard";
    if (this.myTurn()) {
      const clock = s.turnDeadlineUnixMs > 0n ? ` (clock: ${Math.max(0, Math.round((Number(s.turnDeadlineUnixMs) - Date.now()) / 1000))} s)` : "";
      return `Your turn: ${phase}${clock}`;
    }
    return who.length ? `Waiting for ${who.map((x) => this.name(x)).join(" and ")} (${phase})` : "";
  }

  private resultLine(s: GameSnapshot): string {
    const r = s.result;
    if (!r) return "Game over";
    const why = r.reason === GameEndReason.RESIGNED ? " (resigned)" : r.reason === GameEndReason.FORFEIT ? " (forfeit)" : r.reason === GameEndReason.CANCELLED ? " (cancelled)" : r.reason === GameEndReason.ABANDONED ? " (abandoned)" : r.reason === GameEndReason.HAND_LIMIT ? " (the hand limit: the totals decide)" : "";
    const winners = r.winners.length ? r.winners : r.winner !== undefined ? [r.winner] : [];
    const w = winners.length ? `${winners.map((x) => this.name(x)).join(" and ")} won` : "no winner";
    const totals = this.standings(s, r.teamTotals, r.tableTotals.length ? r.tableTotals : r.totals);
    return `Game over: ${w}${why}${totals ? `; final score ${totals}` : ""}`;
  }

  /**
   * Totals in words, each named and the best first: "bob 12, ada (you) −3, cy −15 (net:
   * points won minus penalties; the highest wins)"; teams by their players.
   */
  private standings(s: GameSnapshot, teams: readonly bigint[], perSeat: readonly (bigint | number)[]): string {
    const by = <T,>(xs: [string, T][], v: (t: T) => number) => [...xs].sort((a, b) => v(b[1]) - v(a[1]));
    let named: [string, bigint | number][];
    if (teams.length > 0) {
      named = teams.map((t, i) => [`team ${i} (${s.seats.filter((x) => x.team === i).map((x) => this.name(x.seat)).join(", ")})`, t]);
    } else {
      named = perSeat.map((t, seat) => [this.name(seat), t]);
    }
    if (named.length === 0) return "";
    const text = by(named, Number).map(([n, t]) => `${n} ${signed(t)}`).join(", ");
    return s.format?.kind === "gin-7" ? `${text} (net: points won minus penalties; the highest wins)` : text;
  }

  private tables(s: GameSnapshot): Child {
    const views = tablesOf(s);
    return views.map((t, i) => h("section", { class: "table", "aria-label": views.length > 1 ? `table ${i + 1}` : "the table" },
      h("div", { class: "opponents" }, t.seats.filter((x) => x !== s.viewerSeat).map((x) => {
        const n = t.handSizes[t.seats.indexOf(x)] ?? 0;
        const known = t.known.get(x) ?? [];
        const acting = s.seatsToAct.includes(x) || s.seatToAct === x;
        return h("div", { class: "opponent" + (acting ? " acting" : ""), "aria-label": `${this.name(x)}: ${n} cards${known.length ? `, known ${faces(known)}` : ""}` },
          h("div", { class: "who" }, this.name(x), x === t.dealer ? " · dealer" : "", acting ? " · to play" : ""),
          h("div", { class: "count" }, `${n} cards`),
          known.length > 0 && h("div", { class: "known" }, "holds ", known.map((c) => cardElement(c, { small: true }))));
      })),
      s.sittingOut !== undefined && h("p", { class: "sitting-out" }, `${this.name(s.sittingOut)} deals and sits this hand out`),
      h("div", { class: "middle" },
        this.stockElement(t),
        this.pileElement(t),
        t.knockLimit > 0 && h("span", { class: "limit" }, `knock limit ${t.knockLimit}`)),
      t.melds.length > 0 && h("div", { class: "melds", "aria-label": "melds on the table" }, t.melds.map((m) =>
        h("div", { class: "meld", "data-meld": m.index },
          h("span", { class: "who" }, `${m.index}: ${this.name(m.seat)}`),
          m.cards.map((c) => cardElement(c, { small: true })),
          m.layoffs.map((l) => cardElement(l.card, { small: true, label: `${face(l.card)} laid off by ${this.name(l.seat)}` })))))));
  }

  private stockElement(t: TableView): HTMLElement {
    const draw = this.myTableHas(t) && this.legal().some((a) => a.kind === ActionKind.DRAW_STOCK);
    const label = `stock, ${t.stock} cards${draw ? ": draw from it" : ""}`;
    const back = backElement(label, draw && !this.busy
      ? () => void this.act("drawing", (seq, o) => api.game.draw(create(DrawRequestSchema, { gameId: this.id, expectedSeq: seq, source: DrawSource.STOCK }), o))
      : undefined);
    back.id = "stock";
    return h("div", { class: "pile-area" }, back, h("div", { class: "caption" }, `stock ${t.stock}`));
  }

  private pileElement(t: TableView): HTMLElement {
    const top = t.pile[t.pile.length - 1];
    const legal = this.myTableHas(t) ? this.legal() : [];
    const take = legal.find((a) => a.kind === ActionKind.DRAW_PILE || a.kind === ActionKind.TAKE_UPCARD);
    let el: HTMLElement;
    if (top) {
      el = cardElement(top, {
        label: `discard pile, top card ${face(top)}${take ? ": take it" : ""}`,
        onClick: take && !this.busy ? () => this.takePile(take) : undefined,
      });
    } else {
      el = h("span", { class: "card empty", role: "img", "aria-label": "the discard pile is empty" });
    }
    el.id = "pile";
    const under = t.pile.slice(-4, -1);
    // A card of the hand dropped here (on the card or its caption) is discarded.
    const mine = this.snap?.viewerSeat !== undefined && t.seats.includes(this.snap.viewerSeat);
    return h("div", { class: "pile-area" + (mine ? " drop-pile" : "") }, el, h("div", { class: "caption" }, under.length ? `pile (under: ${faces(under)})` : "pile"));
  }

  private takePile(a: LegalAction): void {
    if (a.kind === ActionKind.TAKE_UPCARD) {
      void this.act("taking the upcard", (seq, o) => api.game.takeUpcard({ gameId: this.id, expectedSeq: seq }, o));
    } else {
      void this.act("taking the pile's card", (seq, o) => api.game.draw(create(DrawRequestSchema, { gameId: this.id, expectedSeq: seq, source: DrawSource.PILE }), o));
    }
  }

  /** Whether the viewer plays at table `t`. */
  private myTableHas(t: TableView): boolean {
    return this.snap?.viewerSeat !== undefined && t.seats.includes(this.snap.viewerSeat) && this.myTurn();
  }

  private handArea(s: GameSnapshot): Child {
    if (s.viewerSeat === undefined) return h("p", { class: "spectator" }, "You are watching: hands stay hidden until they are shown.");
    if (s.hand.length === 0) return null;
    const legal = this.legal();
    const best = s.turn?.best;
    const toDiscard = legal.some((a) => a.kind === ActionKind.DISCARD || a.kind === ActionKind.KNOCK);
    // The server's least-deadwood discard, when it may be discarded now (it may be the card
    // just taken from the pile, which may not).
    const suggested = legal.some((a) => a.kind === ActionKind.DISCARD && a.card === s.turn?.bestDiscard) ? s.turn?.bestDiscard : undefined;
    const cardOf = (c: string) => {
      const canDiscard = legal.some((a) => a.kind === ActionKind.DISCARD && a.card === c);
      const taken = c === s.takenFromPile;
      const el = cardElement(c, {
        onClick: this.busy ? undefined : () => this.clickCard(c),
        selected: this.selected === c,
        label: `${face(c)}${taken ? " (taken from the pile: may not be discarded now)" : ""}${canDiscard ? (this.selected === c ? ": selected, press again to discard" : ": select") : ""}`,
      });
      el.id = `card-${c}`;
      if (taken) el.classList.add("taken");
      if (c === suggested) el.dataset.suggested = "true";
      // Any card may be dragged when a discard is due: one that may not go says why.
      if (toDiscard && !this.busy) this.draggable(el, c);
      return el;
    };
    // Melds first, each a group (the server's arrangement, the last it gave, of the cards
    // still held), then the rest; or every card by suit or by rank.
    const melds = this.sort === "melds" && this.meldsHand === s.handNumber ? this.melds.filter((m) => m.every((c) => s.hand.includes(c))) : [];
    const inMeld = new Set(melds.flat());
    const rest = s.hand.filter((c) => !inMeld.has(c));
    const order = this.sort === "rank" ? byRank(rest) : bySuit(rest);
    const me = s.viewerSeat;
    return h("section", { class: "hand", "aria-label": "your hand" },
      h("div", { class: "hand-head" },
        h("span", { class: "you" }, `Your hand · ${this.name(me)}`),
        h("button", { type: "button", id: "sort", class: "quiet", "data-sort": this.sort, title: "o", onclick: () => this.cycleSort() }, `Order: ${SORT_WORDS[this.sort]}`)),
      h("div", { class: "cards" },
        melds.map((m) => h("div", { class: "meld-group", role: "group", "aria-label": `meld ${faces(m)}` }, m.map(cardOf))),
        order.map(cardOf)),
      best && h("p", { class: "best" }, `Deadwood ${best.deadwoodValue}${best.melds.length ? ` · melds ${best.melds.map((m) => faces(m.cards)).join(" | ")}` : ""}${suggested ? ` · suggested discard ${face(suggested)}` : ""}`));
  }

  private actions(s: GameSnapshot): Child {
    if (s.viewerSeat === undefined || s.phase === Phase.GAME_OVER) return null;
    const legal = this.myTurn() ? this.legal() : [];
    const sel = this.selected;
    const buttons: HTMLElement[] = [];
    const button = (id: string, text: string, onclick: () => void, primary = false) =>
      buttons.push(h("button", { type: "button", id, class: primary ? "primary" : "", disabled: this.busy, onclick }, text));
    for (const a of legal) {
      switch (a.kind) {
        case ActionKind.TAKE_UPCARD:
          button("take-upcard", "Take the upcard", () => this.takePile(a));
          break;
        case ActionKind.PASS_UPCARD:
          button("pass", "Pass", () => void this.act("passing", (seq, o) => api.game.passUpcard({ gameId: this.id, expectedSeq: seq }, o)));
          break;
        case ActionKind.DRAW_STOCK:
          button("draw-stock", "Draw from the stock", () => void this.act("drawing", (seq, o) => api.game.draw(create(DrawRequestSchema, { gameId: this.id, expectedSeq: seq, source: DrawSource.STOCK }), o)), true);
          break;
        case ActionKind.DRAW_PILE:
          button("draw-pile", `Take ${s.pile.length ? face(s.pile[s.pile.length - 1]) : "the pile's card"}`, () => this.takePile(a));
          break;
        case ActionKind.BIG_GIN:
          button("big-gin", "Big gin!", () => void confirmDialog("Go big gin with all eleven cards?", "Big gin").then((yes) => {
            if (yes) void this.act("going big gin", (seq, o) => api.game.knock({ gameId: this.id, expectedSeq: seq, discard: "" }, o));
          }), true);
          break;
        case ActionKind.MELD:
          button(`meld-${a.cards.join("-")}`, `Lay ${faces(a.cards)}`, () => void this.act("laying a meld", (seq, o) => api.game.layMeld({ gameId: this.id, expectedSeq: seq, cards: a.cards }, o)));
          break;
        case ActionKind.LAY_OFF:
          button(`layoff-${a.card}-${a.meld}`, `Lay off ${face(a.card)} on meld ${a.meld}`, () => void this.act("laying off", (seq, o) => api.game.layOff({ gameId: this.id, expectedSeq: seq, card: a.card, meld: a.meld }, o)));
          break;
        default:
          break;
      }
    }
    if (sel) {
      const d = legal.find((a) => a.kind === ActionKind.DISCARD && a.card === sel);
      if (d) button("discard", `Discard ${face(sel)}`, () => this.discard(sel), true);
      const k = legal.find((a) => a.kind === ActionKind.KNOCK && a.card === sel);
      if (k) button("knock", k.deadwood === 0 ? `Gin, discarding ${face(sel)}` : `Knock, discarding ${face(sel)} (deadwood ${k.deadwood})`, () => void this.knock(k), true);
    } else if (legal.some((a) => a.kind === ActionKind.DISCARD || a.kind === ActionKind.KNOCK)) {
      const knocks = legal.filter((a) => a.kind === ActionKind.KNOCK);
      buttons.push(h("span", { class: "hint" }, knocks.length
        ? `Pick a card to discard; you may knock discarding ${faces(knocks.map((k) => k.card))}`
        : "Pick a card to discard (press it twice, or drag it onto the pile)"));
    }
    return h("section", { class: "actions", "aria-label": "your moves" }, buttons,
      h("button", { type: "button", id: "resign", class: "quiet", disabled: this.busy, onclick: () => void confirmDialog("Resign this game?", "Resign").then((yes) => {
        if (yes) void this.act("resigning", (seq, o) => api.game.resign({ gameId: this.id, expectedSeq: seq }, o));
      }) }, "Resign"));
  }

  /** The last finished hand in a line: how it ended, who scored. */
  private handTitle(s: GameSnapshot): string {
    const two = s.hands[s.hands.length - 1];
    if (two) {
      return `Hand ${two.handNumber + 1}: ${END_WORDS[two.end] ?? "over"}${two.end === EndKind.TURN_LIMIT ? ` (${two.turns} turns)` : ""}${two.winner !== undefined ? `, ${this.name(two.winner)} scores ${two.points}${two.doubled ? " (doubled)" : ""}` : ""}`;
    }
    const t = s.tableHands[s.tableHands.length - 1];
    if (!t) return "";
    return `Hand ${t.handNumber + 1}${s.tables.length > 1 ? `, table ${t.table + 1}` : ""}: ${END_WORDS[t.end] ?? "over"}${t.end === EndKind.TURN_LIMIT ? ` (${t.turns} turns)` : ""}${t.by !== undefined ? ` by ${this.name(t.by)}` : ""}${t.winner !== undefined ? `, ${this.name(t.winner)} scores ${t.points}` : ""}`;
  }

  /** The last finished hand in full: how it ended, each side's melds, lay-offs and deadwood. */
  private lastHand(s: GameSnapshot): Child {
    const two = s.hands[s.hands.length - 1];
    if (two) {
      const sd = two.showdown;
      const title = this.handTitle(s);
      const side = (seat: number, arr: Arrangement | undefined, layoffs: string[]) =>
        h("div", { class: "side" },
          h("div", { class: "who" }, this.name(seat)),
          arr?.melds.map((m) => h("span", { class: "meld-cards" }, m.cards.map((c) => cardElement(c, { small: true })))),
          layoffs.length > 0 && h("span", { class: "layoffs" }, "lays off ", layoffs.map((c) => cardElement(c, { small: true }))),
          h("span", { class: "deadwood" }, `deadwood ${arr?.deadwoodValue ?? 0}`, arr?.deadwood.length ? ": " : "", arr?.deadwood.map((c) => cardElement(c, { small: true }))));
      return h("section", { class: "last-hand", "aria-label": "the last hand", id: "last-hand" },
        h("h3", {}, title),
        sd && h("div", { class: "showdown" },
          side(sd.knocker, sd.knockerMelds, []),
          side(1 - sd.knocker, sd.defenderMelds, sd.layoffs.map((l) => l.card)),
          sd.discard && h("p", {}, `face-down discard ${face(sd.discard)}`)));
    }
    const t = s.tableHands[s.tableHands.length - 1];
    if (!t) return null;
    const title = this.handTitle(s);
    return h("section", { class: "last-hand", "aria-label": "the last hand", id: "last-hand" },
      h("h3", {}, title),
      h("div", { class: "showdown" }, t.outcomes.map((o) => h("div", { class: "side" },
        h("div", { class: "who" }, this.name(o.seat)),
        o.melds.map((m) => h("span", { class: "meld-cards" }, m.cards.map((c) => cardElement(c, { small: true })))),
        o.layoffs.length > 0 && h("span", { class: "layoffs" }, "lays off ", o.layoffs.map((c) => cardElement(c, { small: true }))),
        h("span", { class: "deadwood" }, `deadwood ${o.deadwoodValue}${o.penalty ? `, loses ${o.penalty}` : ""}`)))));
  }

  private scoreSheet(s: GameSnapshot): Child {
    if (s.hands.length > 0) {
      const seats = s.seats.map((x) => x.seat);
      return h("section", { class: "score-sheet" },
        h("table", { "aria-label": "score sheet" },
          h("caption", {}, `Score sheet (target ${s.rules?.target ?? ""})`),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "hand"), h("th", { scope: "col" }, "end"), h("th", { scope: "col" }, "points"), seats.map((x) => h("th", { scope: "col", class: x === s.viewerSeat ? "mine" : undefined }, this.name(x))))),
          h("tbody", {}, s.hands.map((r) => h("tr", {},
            h("td", {}, String(r.handNumber + 1)),
            h("td", {}, END_WORDS[r.end] ?? ""),
            h("td", {}, r.winner !== undefined ? `${r.points} to ${this.name(r.winner)}` : "–"),
            seats.map((x) => h("td", { class: x === s.viewerSeat ? "mine" : undefined }, String(r.scores[x] ?? "")))))),
          h("tfoot", {}, h("tr", {},
            h("th", { scope: "row", colspan: 3 }, s.result ? "final, with bonuses" : "score"),
            seats.map((x) => h("td", { class: x === s.viewerSeat ? "mine" : undefined }, String((s.result ? s.result.totals : s.scores)[x] ?? "")))))));
    }
    if (s.tableHands.length > 0 || s.totals.length > 0) {
      const teams = s.teamTotals.length > 0;
      const cols = teams ? s.teamTotals.map((_, i) => `team ${i}`) : s.seats.map((x) => this.name(x.seat));
      const gin7 = s.format?.kind === "gin-7" && !teams;
      const totals = s.result ? (teams ? s.result.teamTotals : s.result.tableTotals) : teams ? s.teamTotals : s.totals;
      const mine = (i: number) => !teams && i === s.viewerSeat ? "mine" : undefined;
      // Gin for 3 to 6 keeps points won and penalties apart: both, then the net.
      const won = cols.map(() => 0);
      const lost = cols.map(() => 0);
      for (const r of s.tableHands) {
        if (r.winner !== undefined) won[r.winner] += r.points;
        for (const o of r.outcomes) lost[o.seat] += o.penalty;
      }
      const place = (v: bigint) => 1 + totals.filter((o) => o > v).length;
      const row = (label: string, cells: string[], id?: string) => h("tr", { id },
        h("th", { scope: "row", colspan: 2 }, label), cells.map((c, i) => h("td", { class: mine(i) }, c)));
      return h("section", { class: "score-sheet" },
        h("table", { "aria-label": "score sheet" },
          h("caption", {}, gin7 ? "Score sheet: net totals, points won minus penalties; the highest leads" : "Score sheet: the highest total leads"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "hand"), h("th", { scope: "col" }, "end"), cols.map((c, i) => h("th", { scope: "col", class: mine(i) }, c)))),
          h("tbody", {}, s.tableHands.map((r) => h("tr", {},
            h("td", {}, `${r.handNumber + 1}${s.tables.length > 1 ? `/${r.table + 1}` : ""}`),
            h("td", {}, `${END_WORDS[r.end] ?? ""}${r.winner !== undefined ? ` (${this.name(r.winner)} ${r.points})` : ""}`),
            r.totals.map((v, i) => h("td", { class: mine(i) }, signed(v)))))),
          h("tfoot", {},
            gin7 && row("points won", won.map(String)),
            gin7 && row("penalties", lost.map((v) => signed(-v))),
            row(s.result ? (gin7 ? "final net" : "final, with bonuses") : gin7 ? "net" : "score", totals.map(signed), "totals"),
            totals.length > 0 && row(s.result ? "place" : "standing", totals.map((v) => {
              const p = place(v);
              return p === 1 ? (s.result ? "1st: won" : "1st: leads") : `${p}${p === 2 ? "nd" : p === 3 ? "rd" : "th"}`;
            }), "places"))));
    }
    return null;
  }
}
