// Accounts on the page: the header's "Sign in" or the signed-in name, the sign-in and
// registration form (#/signin), and a player's profile (#/player/NAME): the account, its
// ratings per pool with their history charted (ratings.ts), its games (ListPlayerGames,
// paged), for one's own a Sign out button, and on another's, signed in, a Challenge form.

import * as api from "./api.js";
import { challengeForm } from "./challenges.js";
import { fill, h } from "./dom.js";
import type { PlayerGame } from "./gen/gin/v1/account_pb.js";
import { AccountKind } from "./gen/gin/v1/types_pb.js";
import { renderPlayerRatings } from "./ratings.js";

const PAGE = 20;

/** The header's account links: one's own profile and account page, or Sign in. */
export function renderAccountLink(nav: HTMLElement): void {
  const me = api.me;
  fill(nav, me
    ? [h("a", { id: "me", href: `#/player/${encodeURIComponent(me.name)}`, "aria-label": `your profile: ${me.name}` }, me.name),
      " · ", h("a", { id: "my-account", href: "#/account" }, "Account")]
    : h("a", { id: "sign-in", href: "#/signin" }, "Sign in"));
}

/** The sign-in form, which also creates a person's account. */
export function renderSignIn(root: HTMLElement, go: (hash: string) => void, signedIn: () => void): void {
  const name = h("input", { id: "account-name", maxlength: 32, autocomplete: "username", required: true });
  const password = h("input", { id: "account-password", type: "password", autocomplete: "current-password", required: true, minlength: 8 });
  const message = h("p", { class: "message", role: "alert", id: "account-message" });
  const submit = async (register: boolean) => {
    fill(message, register ? "creating the account…" : "signing in…");
    try {
      await api.signIn(name.value.trim(), password.value, register);
      password.value = "";
      signedIn();
      go("#/");
    } catch (e) {
      fill(message, e instanceof Error ? e.message : String(e));
    }
  };
  fill(root, h("section", { class: "panel", "aria-labelledby": "signin-title" },
    h("h2", { id: "signin-title" }, "Sign in"),
    h("form", { onsubmit: (ev: Event) => { ev.preventDefault(); void submit(false); } },
      h("div", { class: "form" },
        h("label", { for: "account-name" }, "Name"), name,
        h("label", { for: "account-password" }, "Password"), password),
      h("div", { class: "row" },
        h("button", { type: "submit", class: "primary", id: "sign-in-submit" }, "Sign in"),
        h("button", { type: "button", id: "register", onclick: () => { if (form().reportValidity()) void submit(true); } }, "Create an account"))),
    h("p", {}, "Signed in, the games you start here are your account's and listed on your profile. A new account needs a password of at least 8 characters."),
    message));
  const form = () => root.querySelector("form") as HTMLFormElement;
  name.focus();
}

/** A seat of a listed game in words (its account linked). */
function seatOf(g: PlayerGame, seat: number): (Node | string)[] {
  const s = g.seats.find((x) => x.seat === seat);
  if (!s) return [`seat ${seat}`];
  const n = s.account || s.name || `seat ${seat}`;
  return [s.account ? h("a", { href: `#/player/${encodeURIComponent(s.account)}` }, n) : n, api.seatTag(s)];
}

function result(g: PlayerGame): string {
  if (!g.finishedUnixMs) return "playing";
  const o = g.outcome;
  if (!o) return "over";
  return o.won ? "won" : o.drawn ? "drawn" : "lost";
}

/** `name`'s profile; a Sign out button when it is the signed-in account's. */
export function renderProfile(root: HTMLElement, name: string, signedOut: () => void): void {
  const rows = h("tbody", { id: "player-games" });
  const more = h("button", { type: "button", id: "more-games", hidden: true }, "More games");
  const message = h("p", { class: "message", role: "alert" });
  const about = h("p", { id: "player-about" }, "loading…");
  const mine = api.me?.name.toLowerCase() === name.toLowerCase();
  const ratings = h("div", { id: "player-ratings" });
  const signOut = async () => {
    try {
      await api.signOut();
      signedOut();
      location.hash = "#/";
    } catch (e) {
      fill(message, e instanceof Error ? e.message : String(e));
    }
  };
  fill(root, h("section", { class: "panel", "aria-labelledby": "player-name" },
    h("h2", { id: "player-name" }, name),
    about,
    mine && h("div", { class: "row" },
      h("button", { type: "button", id: "sign-out", onclick: () => void signOut() }, "Sign out"),
      h("a", { href: "#/account", id: "profile-account" }, "Password, API tokens, your data")),
    api.me && !mine && challengeForm(name),
    !api.me && h("p", {}, h("a", { href: "#/signin", id: "challenge-sign-in" }, "Sign in"), ` to challenge ${name}.`),
    h("h3", { id: "ratings-title" }, "Ratings"),
    ratings,
    h("h3", { id: "games-title" }, "Games"),
    h("table", { class: "games", "aria-label": "games" },
      h("thead", {}, h("tr", {}, ["date", "game", "opponents", "result", ""].map((c) => h("th", { scope: "col" }, c)))),
      rows),
    h("div", { class: "row" }, more),
    message));
  void api.accounts.getAccount({ name }).then((r) => {
    const a = r.account;
    if (!a) return;
    const kind = a.kind === AccountKind.BOT ? "a bot" : "a person";
    fill(about, `${kind} · since ${new Date(Number(a.createdUnixMs)).toLocaleDateString()} · ${r.gamesFinished} ${r.gamesFinished === 1n ? "game" : "games"} finished`);
  }, (e) => fill(about, api.explain(e)));
  renderPlayerRatings(ratings, name);
  let token = "";
  const page = async () => {
    more.hidden = true;
    try {
      const r = await api.accounts.listPlayerGames({ name, pageSize: PAGE, pageToken: token });
      for (const g of r.games) {
        const others = g.seats.filter((s) => s.seat !== g.seat).flatMap((s, i) => [i ? ", " : "", ...seatOf(g, s.seat)]);
        rows.append(h("tr", { class: "player-game", "data-game": g.gameId },
          h("td", {}, new Date(Number(g.finishedUnixMs || g.joinedUnixMs)).toLocaleString()),
          h("td", {}, g.format?.name || g.rules?.name || "gin"),
          h("td", { class: "opponents-cell" }, others),
          h("td", { class: "result" }, result(g)),
          h("td", {}, h("a", { href: `#/watch/${g.gameId}` }, "view"))));
      }
      if (!rows.childElementCount) rows.append(h("tr", {}, h("td", { colspan: 5 }, "No games yet.")));
      token = r.nextPageToken;
      more.hidden = !token;
    } catch (e) {
      fill(message, api.explain(e));
    }
  };
  more.addEventListener("click", () => void page());
  void page();
}
