// The page's entry: a hash router over the lobby, a game (played or watched) and joining by
// link, signing in (#/signin), a player's profile (#/player/NAME), one's own account
// (#/account) and a pool's leaderboard (#/leaderboard/POOL, e.g. #/leaderboard/gin/standard).
// Everything is drawn in #app, but for the signed-in account's challenges (#challenges, above
// every page); the server serves this bundle at `/`.

import { renderAccountLink, renderProfile, renderSignIn } from "./account.js";
import * as api from "./api.js";
import { ChallengePanel } from "./challenges.js";
import { fill, h } from "./dom.js";
import { GameView } from "./game.js";
import { renderHome } from "./home.js";
import { leaveLadder } from "./ladder.js";
import { renderLeaderboard } from "./ratings.js";
import { renderSettings } from "./settings.js";
import { TournamentView } from "./tournament.js";

const root = document.getElementById("app") as HTMLElement;
const nav = document.getElementById("account") as HTMLElement;
const challenges = new ChallengePanel(document.getElementById("challenges") as HTMLElement, (hash) => go(hash));
const accountChanged = () => {
  // Signed out: out of the ladder's queue too.
  if (!api.me) leaveLadder();
  renderAccountLink(nav);
  challenges.sync();
};
let current: { close(): void } | undefined;

function go(hash: string): void {
  if (location.hash === hash) void route();
  else location.hash = hash;
}

async function route(): Promise<void> {
  current?.close();
  current = undefined;
  const [, page, id, ...rest] = location.hash.split("/");
  switch (page) {
    case "play":
    case "watch": {
      if (!id) break;
      const view = new GameView(root, id, page === "watch" || api.seatOf(id) === undefined);
      current = view;
      view.start();
      document.title = `Gin · ${id}`;
      return;
    }
    case "tournament": {
      if (!id) break;
      const view = new TournamentView(root, id);
      current = view;
      view.start();
      document.title = `Gin · tournament ${id}`;
      return;
    }
    case "signin":
      document.title = "Gin · sign in";
      renderSignIn(root, go, accountChanged);
      return;
    case "account":
      document.title = "Gin · your account";
      renderSettings(root, accountChanged);
      return;
    case "leaderboard": {
      // A pool's id has a slash of its own (gin/standard): the rest of the hash is the pool.
      const pool = decodeURIComponent([id, ...rest].filter((x) => x !== undefined).join("/")) || "gin/standard";
      document.title = `Gin · leaderboard ${pool}`;
      renderLeaderboard(root, pool, go);
      return;
    }
    case "player": {
      if (!id) break;
      const name = decodeURIComponent(id);
      document.title = `Gin · ${name}`;
      renderProfile(root, name, accountChanged);
      return;
    }
    case "join": {
      if (!id) break;
      if (api.seatOf(id)) return go(`#/play/${id}`);
      const name = h("input", { id: "join-name", value: api.playerName(), maxlength: 32, "aria-label": "your name" });
      const message = h("p", { class: "message", role: "alert" });
      const join = async () => {
        api.keepName(name.value.trim());
        try {
          const r = await api.lobby.joinGame({ gameId: id, name: name.value.trim() });
          api.keepSeat(id, { seat: r.seat, token: r.seatToken });
          go(`#/play/${id}`);
        } catch (e) {
          fill(message, api.explain(e));
        }
      };
      fill(root, h("section", { class: "panel" },
        h("h2", {}, `Join game ${id}`),
        h("form", { class: "row", onsubmit: (ev: Event) => { ev.preventDefault(); void join(); } },
          name, h("button", { type: "submit", class: "primary", id: "join" }, "Take a seat"),
          h("a", { href: `#/watch/${id}` }, "or watch")),
        message));
      name.focus();
      return;
    }
    default:
      break;
  }
  document.title = "Gin Rummy";
  renderHome(root, go);
}

window.addEventListener("hashchange", () => void route());
// Who is signed in (the session is an HttpOnly cookie: only the server can say).
void api.whoAmI().then(accountChanged, accountChanged).finally(() => void route());
