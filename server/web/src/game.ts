// One game in the browser: played from a seat this browser holds, or watched. The page keeps
// a WatchGame stream open (resuming after the last seq it saw when it drops, like `gin`) and
// draws every change from a fresh snapshot of what this viewer may see; the seat's legal
// actions come with it, so the page knows no rules of its own.

import { create } from "@bufbuild/protobuf";
import * as api from "./api.js";
import { backElement, bySuit, cardElement, face, faces } from "./cards.js";
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
};

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

  constructor(private readonly root: HTMLElement, private readonly id: string, watchOnly: boolean) {
    this.seat = watchOnly ? undefined : api.seatOf(id);
  }

  /** Starts following the game; `close` stops. */
  start(): void {
    void this.follow();
    this.render();
  }

  close(): void {
    this.stop.abort();
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

  /** Sends one action; a refusal is shown and the game is read again. */
  private async act(what: string, call: (seq: bigint, opts: ReturnType<typeof api.as>) => Promise<unknown>): Promise<void> {
    if (this.busy || !this.snap) return;
    this.busy = true;
    this.message = what + "…";
    this.render();
    try {
      await call(this.lastSeq, api.as(this.seat));
      this.message = "";
      this.selected = undefined;
    } catch (e) {
      this.message = api.explain(e);
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

  /** A click on a card of the hand: select it, or play it when it was selected already. */
  private clickCard(card: string): void {
    const canDiscard = this.legal().some((a) => a.kind === ActionKind.DISCARD && a.card === card);
    if (this.selected === card && canDiscard) {
      this.discard(card);
      return;
    }
    this.selected = this.selected === card ? undefined : card;
    this.render();
  }

  private render(): void {
    const s = this.snap;
    if (!s) {
      fill(this.root, h("p", { class: "status", role: "status" }, this.connection || "loading…"));
      return;
    }
    // For tests and tools: the seq drawn, and whether a move is in flight.
    this.root.dataset.seq = String(s.seq);
    this.root.dataset.busy = this.busy ? "1" : "";
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.id : "";
    fill(this.root,
      this.header(s),
      h("p", { class: "status", role: "status", "aria-live": "polite", id: "status" }, this.statusLine(s)),
      this.message && h("p", { class: "message", role: "alert", id: "message" }, this.message),
      s.phase !== Phase.GAME_OVER && this.tables(s),
      s.phase !== Phase.GAME_OVER && this.handArea(s),
      this.actions(s),
      this.lastHand(s),
      this.scoreSheet(s),
      s.phase === Phase.GAME_OVER && this.verifyPanel());
    if (focused) document.getElementById(focused)?.focus();
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
        h("span", { class: "seat" + (x.taken ? "" : " empty") }, `${x.seat}: ${x.taken ? this.name(x.seat) : "(free)"}${x.bot ? " (bot)" : ""}${x.team !== undefined ? ` team ${x.team}` : ""}`))),
      open && h("p", { class: "share" }, "Share this link: ",
        h("input", { id: "share-link", readonly: true, value: link, "aria-label": "link to join this game", size: 40 }),
        h("button", { type: "button", onclick: () => void navigator.clipboard?.writeText(link) }, "Copy")),
      this.connection && h("p", { class: "connection" }, this.connection));
  }

  private statusLine(s: GameSnapshot): string {
    if (s.phase === Phase.GAME_OVER) return this.resultLine(s);
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
    const why = r.reason === GameEndReason.RESIGNED ? " (resigned)" : r.reason === GameEndReason.FORFEIT ? " (forfeit)" : r.reason === GameEndReason.CANCELLED ? " (cancelled)" : r.reason === GameEndReason.ABANDONED ? " (abandoned)" : "";
    const winners = r.winners.length ? r.winners : r.winner !== undefined ? [r.winner] : [];
    const totals = r.teamTotals.length ? `teams ${r.teamTotals.join(" – ")}` : r.tableTotals.length ? r.tableTotals.join(" – ") : r.totals.join(" – ");
    const w = winners.length ? `${winners.map((x) => this.name(x)).join(" and ")} won` : "no winner";
    return `Game over: ${w}${why}; final score ${totals}`;
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
    // Drop a card of the hand here to discard it.
    el.addEventListener("dragover", (ev) => ev.preventDefault());
    el.addEventListener("drop", (ev) => {
      ev.preventDefault();
      const card = ev.dataTransfer?.getData("text/plain");
      if (card && this.legal().some((a) => a.kind === ActionKind.DISCARD && a.card === card)) this.discard(card);
    });
    const under = t.pile.slice(-4, -1);
    return h("div", { class: "pile-area" }, el, h("div", { class: "caption" }, under.length ? `pile (under: ${faces(under)})` : "pile"));
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
    return h("section", { class: "hand", "aria-label": "your hand" },
      h("div", { class: "cards" }, bySuit(s.hand).map((c) => {
        const canDiscard = legal.some((a) => a.kind === ActionKind.DISCARD && a.card === c);
        const el = cardElement(c, {
          onClick: this.busy ? undefined : () => this.clickCard(c),
          selected: this.selected === c,
          label: `${face(c)}${c === s.takenFromPile ? " (taken from the pile: may not be discarded now)" : ""}${canDiscard ? (this.selected === c ? ": selected, press again to discard" : ": select") : ""}`,
        });
        el.id = `card-${c}`;
        if (c === s.turn?.bestDiscard) el.dataset.suggested = "true";
        if (canDiscard) {
          el.draggable = true;
          el.addEventListener("dragstart", (ev) => ev.dataTransfer?.setData("text/plain", c));
        }
        return el;
      })),
      best && h("p", { class: "best" }, `Deadwood ${best.deadwoodValue}${best.melds.length ? ` · melds ${best.melds.map((m) => faces(m.cards)).join(" | ")}` : ""}${s.turn?.bestDiscard ? ` · suggested discard ${face(s.turn.bestDiscard)}` : ""}`));
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
        : "Pick a card to discard (click it twice, or drag it onto the pile)"));
    }
    return h("section", { class: "actions", "aria-label": "your moves" }, buttons,
      h("button", { type: "button", id: "resign", class: "quiet", disabled: this.busy, onclick: () => void confirmDialog("Resign this game?", "Resign").then((yes) => {
        if (yes) void this.act("resigning", (seq, o) => api.game.resign({ gameId: this.id, expectedSeq: seq }, o));
      }) }, "Resign"));
  }

  /** The last finished hand in full: how it ended, each side's melds, lay-offs and deadwood. */
  private lastHand(s: GameSnapshot): Child {
    const two = s.hands[s.hands.length - 1];
    if (two) {
      const sd = two.showdown;
      const title = `Hand ${two.handNumber + 1}: ${END_WORDS[two.end] ?? "over"}${two.winner !== undefined ? `, ${this.name(two.winner)} scores ${two.points}${two.doubled ? " (doubled)" : ""}` : ""}`;
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
    const title = `Hand ${t.handNumber + 1}${s.tables.length > 1 ? `, table ${t.table + 1}` : ""}: ${END_WORDS[t.end] ?? "over"}${t.by !== undefined ? ` by ${this.name(t.by)}` : ""}${t.winner !== undefined ? `, ${this.name(t.winner)} scores ${t.points}` : ""}`;
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
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "hand"), h("th", { scope: "col" }, "end"), h("th", { scope: "col" }, "points"), seats.map((x) => h("th", { scope: "col" }, this.name(x))))),
          h("tbody", {}, s.hands.map((r) => h("tr", {},
            h("td", {}, String(r.handNumber + 1)),
            h("td", {}, END_WORDS[r.end] ?? ""),
            h("td", {}, r.winner !== undefined ? `${r.points} to ${this.name(r.winner)}` : "–"),
            seats.map((x) => h("td", {}, String(r.scores[x] ?? "")))))),
          h("tfoot", {}, h("tr", {},
            h("th", { scope: "row", colspan: 3 }, s.result ? "final, with bonuses" : "score"),
            seats.map((x) => h("td", {}, String((s.result ? s.result.totals : s.scores)[x] ?? "")))))));
    }
    if (s.tableHands.length > 0 || s.totals.length > 0) {
      const teams = s.teamTotals.length > 0;
      const cols = teams ? s.teamTotals.map((_, i) => `team ${i}`) : s.seats.map((x) => this.name(x.seat));
      return h("section", { class: "score-sheet" },
        h("table", { "aria-label": "score sheet" },
          h("caption", {}, "Score sheet"),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "hand"), h("th", { scope: "col" }, "end"), cols.map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, s.tableHands.map((r) => h("tr", {},
            h("td", {}, `${r.handNumber + 1}${s.tables.length > 1 ? `/${r.table + 1}` : ""}`),
            h("td", {}, `${END_WORDS[r.end] ?? ""}${r.winner !== undefined ? ` (${this.name(r.winner)} ${r.points})` : ""}`),
            r.totals.map((v) => h("td", {}, String(v)))))),
          h("tfoot", {}, h("tr", {},
            h("th", { scope: "row", colspan: 2 }, s.result ? "final, with bonuses" : "score"),
            (s.result ? (teams ? s.result.teamTotals : s.result.tableTotals) : teams ? s.teamTotals : s.totals).map((v) => h("td", {}, String(v)))))));
    }
    return null;
  }
}
