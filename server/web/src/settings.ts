// The signed-in account's own page (#/account, from the header): change the password (the
// server ends every session and sets the cookie to a new one: `POST /session/password`), API
// tokens (listed, created with a label and scopes and shown once, revoked), the account's data
// as a JSON download (ExportAccount), and deleting the account (its name typed, and its
// password), after which the page is signed out.

import * as api from "./api.js";
import { confirmDialog, fill, h } from "./dom.js";
import { TokenScope, type TokenInfo } from "./gen/gin/v1/account_pb.js";

const SCOPES: [TokenScope, string, string][] = [
  [TokenScope.PLAY, "play", "create, join and play games"],
  [TokenScope.TOURNAMENT, "tournament", "create and enter tournaments"],
  [TokenScope.ACCOUNT, "account", "manage the account (tokens, password, export, deletion)"],
];

const scopeName = (s: TokenScope) => SCOPES.find(([v]) => v === s)?.[1] ?? String(s);
const when = (ms: bigint) => (ms ? new Date(Number(ms)).toLocaleString() : "never");
const words = (e: unknown) => (e instanceof Error && !("code" in e) ? e.message : api.explain(e));

/** The account page; `changed` once the header must be drawn again (signed out). */
export function renderSettings(root: HTMLElement, changed: () => void): void {
  const me = api.me;
  if (!me) {
    fill(root, h("section", { class: "panel" }, h("h2", {}, "Your account"),
      h("p", {}, "You are not signed in. ", h("a", { href: "#/signin", id: "settings-sign-in" }, "Sign in"), " to manage your account.")));
    return;
  }
  const name = me.name;

  // The password.
  const current = h("input", { id: "password-current", type: "password", autocomplete: "current-password", required: true });
  const next = h("input", { id: "password-new", type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  const again = h("input", { id: "password-again", type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  const passwordMessage = h("p", { class: "message", role: "status", id: "password-message" });
  const changePassword = async () => {
    if (next.value !== again.value) return void fill(passwordMessage, "The new password and its repetition differ.");
    fill(passwordMessage, "changing the password…");
    try {
      await api.changePassword(current.value, next.value);
      for (const i of [current, next, again]) i.value = "";
      fill(passwordMessage, "Password changed. Every other sign-in has ended; this page stays signed in.");
      passwordMessage.dataset.done = "";
      void list();
    } catch (e) {
      fill(passwordMessage, words(e));
    }
  };

  // API tokens.
  const rows = h("tbody", { id: "tokens" });
  const label = h("input", { id: "token-label", maxlength: 64, required: true, placeholder: "e.g. my bot" });
  const boxes = SCOPES.map(([v, n, what]) => {
    const box = h("input", { type: "checkbox", id: `scope-${n}`, value: String(v), checked: v === TokenScope.PLAY });
    return [box, h("label", { for: `scope-${n}`, title: what }, n)] as const;
  });
  const shown = h("div", { id: "new-token-box", hidden: true });
  const tokenMessage = h("p", { class: "message", role: "status", id: "token-message" });
  const list = async () => {
    try {
      const r = await api.accounts.listTokens({});
      const live = r.tokens.filter((t) => !t.session && !t.revokedUnixMs);
      const sessions = r.tokens.filter((t) => t.session && !t.revokedUnixMs).length;
      fill(rows, live.length ? live.map(row) : h("tr", {}, h("td", { colspan: 5 }, "No API tokens.")));
      fill(sessionsLine, sessions === 1 ? "Signed in here only." : `${sessions} sign-ins are active (browsers and clients, this page's included).`);
    } catch (e) {
      fill(tokenMessage, words(e));
    }
  };
  const row = (t: TokenInfo) => h("tr", { class: "token", "data-token": t.id },
    h("td", { class: "token-label" }, t.label),
    h("td", { class: "token-scopes" }, t.scopes.map(scopeName).join(", ")),
    h("td", {}, when(t.createdUnixMs)),
    h("td", {}, when(t.lastUsedUnixMs)),
    h("td", {}, h("button", { type: "button", class: "revoke", "aria-label": `revoke ${t.label}`, onclick: () => void revoke(t) }, "Revoke")));
  const revoke = async (t: TokenInfo) => {
    if (!(await confirmDialog(`Revoke the token “${t.label}”? Programs using it stop working.`, "Revoke"))) return;
    try {
      await api.accounts.revokeToken({ id: t.id });
      fill(tokenMessage, `Revoked “${t.label}”.`);
      await list();
    } catch (e) {
      fill(tokenMessage, words(e));
    }
  };
  const create = async () => {
    const scopes = boxes.filter(([b]) => b.checked).map(([b]) => Number(b.value) as TokenScope);
    if (!scopes.length) return void fill(tokenMessage, "Choose at least one scope.");
    try {
      const r = await api.accounts.createToken({ label: label.value.trim(), scopes });
      const code = h("code", { id: "new-token" }, r.token);
      const copied = h("span", { id: "copied", role: "status" });
      const copy = async () => {
        try {
          await navigator.clipboard.writeText(r.token);
          fill(copied, "copied");
        } catch {
          getSelection()?.selectAllChildren(code);
          fill(copied, "selected: press Ctrl+C (⌘C) to copy");
        }
      };
      fill(shown, h("p", {}, `The token “${r.tokenInfo?.label ?? ""}”: copy it now, it is not shown again.`),
        h("div", { class: "row" }, code, h("button", { type: "button", id: "copy-token", onclick: () => void copy() }, "Copy"), copied));
      shown.hidden = false;
      label.value = "";
      fill(tokenMessage, "");
      await list();
    } catch (e) {
      fill(tokenMessage, words(e));
    }
  };
  const sessionsLine = h("p", { id: "sessions" });

  // Export.
  const exportMessage = h("p", { class: "message", role: "status", id: "export-message" });
  const exportData = async () => {
    try {
      const r = await api.accounts.exportAccount({});
      const url = URL.createObjectURL(new Blob([r.json], { type: "application/json" }));
      const a = h("a", { href: url, download: `gin-account-${name}.json` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      fill(exportMessage, `Downloaded gin-account-${name}.json.`);
    } catch (e) {
      fill(exportMessage, words(e));
    }
  };

  // Deletion.
  const confirmName = h("input", { id: "delete-name", autocomplete: "off", required: true });
  const deletePassword = h("input", { id: "delete-password", type: "password", autocomplete: "current-password", required: true });
  const deleteMessage = h("p", { class: "message", role: "alert", id: "delete-message" });
  const deleteAccount = async () => {
    if (confirmName.value !== name) return void fill(deleteMessage, `Type the account's name, ${name}, exactly.`);
    try {
      await api.accounts.deleteAccount({ confirmName: confirmName.value, password: deletePassword.value });
    } catch (e) {
      return void fill(deleteMessage, words(e));
    }
    // The account's tokens ended with it; the cookie is cleared too.
    await api.signOut().catch(() => undefined);
    changed();
    location.hash = "#/";
  };

  const form = (id: string, submit: () => Promise<void>, ...children: (Node | false)[]) =>
    h("form", { id, onsubmit: (ev: Event) => { ev.preventDefault(); void submit(); } }, ...children);
  fill(root,
    h("section", { class: "panel", "aria-labelledby": "settings-title" },
      h("h2", { id: "settings-title" }, "Your account: ", h("a", { href: `#/player/${encodeURIComponent(name)}` }, name)),
      sessionsLine),
    h("section", { class: "panel", "aria-labelledby": "password-title" },
      h("h3", { id: "password-title" }, "Password"),
      form("password-form", changePassword,
        h("div", { class: "form" },
          h("label", { for: "password-current" }, "Current password"), current,
          h("label", { for: "password-new" }, "New password"), next,
          h("label", { for: "password-again" }, "New password again"), again),
        h("div", { class: "row" }, h("button", { type: "submit", id: "password-change" }, "Change the password"))),
      h("p", {}, "Changing it signs you out everywhere else; API tokens keep working."),
      passwordMessage),
    h("section", { class: "panel", "aria-labelledby": "tokens-title" },
      h("h3", { id: "tokens-title" }, "API tokens"),
      h("p", {}, "For programs that play or enter tournaments as you (gin-bot, your own bot). Sent as ", h("code", {}, "authorization: Bearer gin_at_…"), "."),
      h("table", { class: "games", "aria-label": "API tokens" },
        h("thead", {}, h("tr", {}, ["label", "scopes", "created", "last used", ""].map((c) => h("th", { scope: "col" }, c)))),
        rows),
      form("token-form", create,
        h("div", { class: "row" }, h("label", { for: "token-label" }, "Label"), label,
          boxes.map(([b, l]) => h("span", {}, b, l)),
          h("button", { type: "submit", id: "token-create" }, "Create a token"))),
      shown,
      tokenMessage),
    h("section", { class: "panel", "aria-labelledby": "export-title" },
      h("h3", { id: "export-title" }, "Your data"),
      h("p", {}, "Everything the server keeps about your account: the account, its tokens (never their secrets) and its games, as JSON."),
      h("div", { class: "row" }, h("button", { type: "button", id: "export", onclick: () => void exportData() }, "Download my data")),
      exportMessage),
    h("section", { class: "panel", "aria-labelledby": "delete-title" },
      h("h3", { id: "delete-title" }, "Delete the account"),
      h("p", {}, "Your name is kept, so nobody can take it; your games stay, marked as a deleted account's. This cannot be undone."),
      form("delete-form", deleteAccount,
        h("div", { class: "form" },
          h("label", { for: "delete-name" }, "Type your name"), confirmName,
          h("label", { for: "delete-password" }, "Password"), deletePassword),
        h("div", { class: "row" }, h("button", { type: "submit", id: "delete-account", class: "danger" }, "Delete my account"))),
      deleteMessage));
  void list();
}
