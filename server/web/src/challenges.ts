// Challenges on the page, for a signed-in person: the "Challenge" form on another account's
// profile (CreateChallenge), and the challenges panel above every page, fed by
// WatchChallenges: received ones (Accept / Decline), sent ones (Cancel). When a challenge the
// account is part of is accepted, the page goes to its game: the session's account acts for
// its seat there (GameService takes the account for the seat it holds), so no seat token is
// needed.

import * as api from "./api.js";
import { fill, h } from "./dom.js";
import { type Challenge, ChallengeState } from "./gen/gin/v1/challenge_pb.js";

/** What a challenge may be for: two seats, so two-player gin's presets or rummy for two. */
const GAMES: { label: string; preset: string; format: string }[] = [
  { label: "Gin rummy (standard)", preset: "standard", format: "" },
  { label: "Gin rummy, Oklahoma", preset: "oklahoma", format: "" },
  { label: "Gin rummy, classic", preset: "classic", format: "" },
  { label: "Gin rummy, American", preset: "american", format: "" },
  { label: "Rummy, two players", preset: "", format: "rummy" },
];

const CLOCKS: { label: string; ms: number }[] = [
  { label: "no clock", ms: 0 },
  { label: "30 s a turn", ms: 30_000 },
  { label: "1 min a turn", ms: 60_000 },
  { label: "2 min a turn", ms: 120_000 },
];

/** A challenge's game in words. */
function what(c: Challenge): string {
  const rules = c.rules?.kind.case === "preset" ? c.rules.kind.value : "";
  const game = c.format ? (c.format === "rummy" ? "rummy" : c.format) : `gin (${rules || "standard"})`;
  const clock = c.clock?.turnMillis ? `, ${c.clock.turnMillis / 1000} s a turn` : "";
  return `${game}, ${c.rated ? "rated" : "casual"}${clock}`;
}

/** The form that challenges `opponent` (the caller signed in, and not `opponent`). */
export function challengeForm(opponent: string): HTMLElement {
  const game = h("select", { id: "challenge-game" }, GAMES.map((g, i) => h("option", { value: i }, g.label)));
  const rated = h("input", { id: "challenge-rated", type: "checkbox", checked: true });
  const clock = h("select", { id: "challenge-clock" }, CLOCKS.map((c, i) => h("option", { value: i }, c.label)));
  const message = h("p", { class: "message", role: "alert", id: "challenge-message" });
  const send = async () => {
    const g = GAMES[Number(game.value)];
    const ms = CLOCKS[Number(clock.value)].ms;
    fill(message, "sending…");
    try {
      const r = await api.challenges.createChallenge({
        opponent,
        format: g.format,
        players: g.format ? 2 : 0,
        rules: g.preset ? { kind: { case: "preset", value: g.preset } } : undefined,
        rated: rated.checked,
        clock: ms ? { turnMillis: ms } : undefined,
      });
      const c = r.challenge;
      fill(message, h("span", { class: "sent" }, `Challenge sent to ${opponent}${c ? ` (${what(c)})` : ""}: the game starts here when it is accepted.`));
    } catch (e) {
      fill(message, api.explain(e));
    }
  };
  return h("section", { class: "challenge-form", "aria-labelledby": "challenge-title" },
    h("h3", { id: "challenge-title" }, `Challenge ${opponent}`),
    h("form", { onsubmit: (ev: Event) => { ev.preventDefault(); void send(); } },
      h("div", { class: "form" },
        h("label", { for: "challenge-game" }, "Game"), game,
        h("label", { for: "challenge-rated" }, "Rated"), h("span", { class: "checkbox" }, rated, "a rated game (unticked: casual)"),
        h("label", { for: "challenge-clock" }, "Clock"), clock),
      h("div", { class: "row" }, h("button", { type: "submit", class: "primary", id: "challenge-send" }, "Challenge"))),
    message);
}

/**
 * The signed-in account's open challenges, above every page (hidden while there are none):
 * follows WatchChallenges while someone is signed in (`sync` after each sign-in or out).
 */
export class ChallengePanel {
  private open = new Map<string, Challenge>();
  private stop: AbortController | undefined;
  private who = "";
  private status = "";

  constructor(private readonly el: HTMLElement, private readonly go: (hash: string) => void) {}

  /** Follows the signed-in account's challenges (none signed in: nothing shown). */
  sync(): void {
    const name = api.me?.name ?? "";
    if (name === this.who) return;
    this.stop?.abort();
    this.stop = undefined;
    this.who = name;
    this.open.clear();
    this.status = "";
    this.draw();
    if (!name) return;
    const stop = new AbortController();
    this.stop = stop;
    let started = false;
    void api.follow(() => api.challenges.watchChallenges({}, { signal: stop.signal }), {
      signal: stop.signal,
      message: (m) => {
        started = true;
        if (m.challenge) this.change(m.challenge);
      },
      connection: (text) => {
        // Opened again: the stream starts over with every open challenge.
        if (text === "") this.open.clear();
        this.status = text;
        this.draw();
      },
      started: () => started,
      over: () => false,
    });
  }

  private change(c: Challenge): void {
    if (c.state === ChallengeState.OPEN) {
      this.open.set(c.challengeId, c);
    } else {
      this.open.delete(c.challengeId);
      if (c.state === ChallengeState.ACCEPTED && c.gameId) {
        const to = `#/play/${c.gameId}`;
        if (location.hash !== to) this.go(to);
      }
    }
    this.draw();
  }

  private async answer(c: Challenge, how: "accept" | "decline" | "cancel"): Promise<void> {
    try {
      if (how === "accept") {
        const r = await api.challenges.acceptChallenge({ challengeId: c.challengeId });
        const got = r.challenge;
        if (got?.gameId) {
          if (got.seat !== undefined && r.seatToken) api.keepSeat(got.gameId, { seat: got.seat, token: r.seatToken });
          const to = `#/play/${got.gameId}`;
          if (location.hash !== to) this.go(to);
        }
      } else if (how === "decline") {
        await api.challenges.declineChallenge({ challengeId: c.challengeId });
      } else {
        await api.challenges.cancelChallenge({ challengeId: c.challengeId });
      }
    } catch (e) {
      this.status = api.explain(e);
      this.draw();
    }
  }

  private draw(): void {
    const all = [...this.open.values()].sort((a, b) => Number(a.createdMs - b.createdMs));
    const received = all.filter((c) => !c.sent);
    const sent = all.filter((c) => c.sent);
    this.el.hidden = all.length === 0 && !this.status;
    const who = (n: string) => h("a", { href: `#/player/${encodeURIComponent(n)}` }, n);
    fill(this.el,
      h("h2", { id: "challenges-title" }, "Challenges"),
      this.status && h("p", { class: "message", role: "alert", id: "challenges-status" }, this.status),
      received.length > 0 && h("ul", { id: "challenges-received", "aria-label": "received challenges" }, received.map((c) =>
        h("li", { class: "challenge received", "data-challenge": c.challengeId },
          who(c.challenger), ` challenges you: ${what(c)} `,
          h("button", { type: "button", class: "primary accept", onclick: () => void this.answer(c, "accept") }, "Accept"), " ",
          h("button", { type: "button", class: "decline", onclick: () => void this.answer(c, "decline") }, "Decline")))),
      sent.length > 0 && h("ul", { id: "challenges-sent", "aria-label": "sent challenges" }, sent.map((c) =>
        h("li", { class: "challenge sent", "data-challenge": c.challengeId },
          "You challenged ", who(c.opponent), `: ${what(c)}; waiting for an answer `,
          h("button", { type: "button", class: "cancel", onclick: () => void this.answer(c, "cancel") }, "Cancel")))));
  }
}
