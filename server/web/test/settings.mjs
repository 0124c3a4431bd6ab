// One's own account in a real browser (Debian's Chromium via puppeteer-core), against
// gin-server at URL, for an account NAME with PASSWORD the caller made:
//   1. signs in from the page, opens the account page from the header;
//   2. creates an API token (a label, two scopes): shown once, listed with its label, scopes,
//      creation and last use; printed ("api token VALUE") for the caller to try; revokes it
//      (confirmed): it leaves the list ("revoked api token");
//   3. changes the password to NEW: still signed in (the header, after a reload too), on a
//      new cookie ("session cookie OLD -> NEW": the caller checks OLD is refused, NEW is the
//      account); a wrong current password is refused in words first;
//   4. downloads its data: the JSON file names the account and its revoked token
//      ("exported PATH");
//   5. deletes the account (a wrong name refused first; then its name and NEW password): signed
//      out, the cookie gone ("deleted").
// Usage: node test/settings.mjs URL NAME PASSWORD NEW DOWNLOAD_DIR [SCREENSHOT_DIR]
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { POLL, fail, launch, shot as chromeShot } from "./chromium.mjs";

const [url, name, password, fresh, downloads, shots] = process.argv.slice(2);
if (!url || !name || !password || !fresh || !downloads) {
  console.error("usage: node test/settings.mjs URL NAME PASSWORD NEW DOWNLOAD_DIR [SCREENSHOT_DIR]");
  process.exit(2);
}
mkdirSync(downloads, { recursive: true });
const shot = async (p, what) => {
  if (shots) await chromeShot(p, shots, what);
};

const browser = await launch();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  await page.setViewport({ width: 1100, height: 900 });
  const errors = [];
  const expected = new Set(); // refusals the test provokes on purpose
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => {
    if (r.status() >= 400 && !expected.has(new URL(r.url()).pathname)) errors.push(`${r.status()} for ${r.url()}`);
  });
  const cookie = async () => (await page.cookies()).find((c) => c.name === "gin_session");
  const text = (sel) => page.$eval(sel, (e) => e.textContent ?? "");

  // 1. Sign in; the account page from the header.
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("#sign-in");
  await page.click("#sign-in");
  await page.waitForSelector("#account-name");
  await page.type("#account-name", name);
  await page.type("#account-password", password);
  await page.click("#sign-in-submit");
  await page.waitForSelector("#my-account");
  await page.click("#my-account");
  await page.waitForFunction(() => location.hash === "#/account", POLL);
  await page.waitForSelector("#settings-title");
  if (!(await text("#settings-title")).includes(name)) fail(`the account page names ${await text("#settings-title")}`);
  const first = await cookie();
  if (!first) fail("no session cookie after signing in");
  const maxAge = first.expires - Date.now() / 1000;
  if (!(maxAge > 29 * 86400 && maxAge <= 30 * 86400 + 60)) fail(`the cookie expires in ${maxAge} s`);
  console.log(`signed in; the cookie lasts ${Math.round(maxAge / 86400)} days`);

  // 2. An API token: created, shown once, listed; revoked.
  await page.waitForSelector("#tokens tr");
  if (await page.$("#tokens tr.token")) fail("a new account lists API tokens");
  await page.type("#token-label", "my bot");
  await page.click("#scope-tournament");
  await page.click("#token-create");
  await page.waitForSelector("#new-token");
  const secret = await text("#new-token");
  if (!/^gin_at_[A-Za-z0-9_-]{43}$/.test(secret)) fail(`the token shown is ${secret}`);
  if (!(await text("#new-token-box")).includes("not shown again")) fail("no hint that the token is shown once");
  const row = await page.waitForSelector("#tokens tr.token");
  const cells = await row.$$eval("td", (tds) => tds.map((td) => td.textContent));
  if (cells[0] !== "my bot" || cells[1] !== "play, tournament" || !cells[2] || cells[2] === "never" || cells[3] !== "never") {
    fail(`the token is listed as ${JSON.stringify(cells)}`);
  }
  await shot(page, "account-token");
  console.log(`api token ${secret}`);
  console.log(`listed: ${cells.join(" | ")}`);
  await page.click("#tokens tr.token button.revoke");
  await page.waitForSelector("#confirm-yes");
  await page.click("#confirm-yes");
  await page.waitForFunction(() => !document.querySelector("#tokens tr.token") && document.querySelector("#token-message")?.textContent?.startsWith("Revoked"), POLL);
  console.log("revoked api token");

  // 3. The password: a wrong current one refused, then changed; still signed in.
  expected.add("/session/password");
  await page.type("#password-current", "not the password");
  await page.type("#password-new", fresh);
  await page.type("#password-again", fresh);
  await page.click("#password-change");
  await page.waitForFunction(() => document.querySelector("#password-message")?.textContent?.includes("wrong password"), POLL);
  if ((await cookie())?.value !== first.value) fail("a refused change touched the cookie");
  await page.click("#password-current", { clickCount: 3 });
  await page.type("#password-current", password);
  await page.click("#password-change");
  await page.waitForSelector("#password-message[data-done]");
  const second = await cookie();
  if (!second || second.value === first.value) fail("the cookie was not renewed");
  if (!second.httpOnly || second.sameSite !== "Strict") fail(`the new cookie is ${JSON.stringify(second)}`);
  console.log(`session cookie ${first.value} -> ${second.value}`);
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("#me");
  if ((await text("#me")) !== name) fail(`after the change the header names ${await text("#me")}`);
  await page.waitForSelector("#settings-title");
  console.log("password changed; still signed in");

  // 4. The account's data, downloaded.
  const cdp = await page.createCDPSession();
  await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
  await page.click("#export");
  const file = join(downloads, `gin-account-${name}.json`);
  const deadline = Date.now() + 15_000;
  while (!readdirSync(downloads).includes(`gin-account-${name}.json`)) {
    if (Date.now() > deadline) fail(`no download in ${downloads}: ${readdirSync(downloads)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  let data;
  for (;;) {
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (data.account?.name !== name) fail(`the export names ${data.account?.name}`);
  const mine = data.tokens?.find((t) => t.label === "my bot");
  if (!mine || !mine.revoked_unix_ms) fail(`the export's tokens: ${JSON.stringify(data.tokens)}`);
  if (JSON.stringify(data).includes(secret)) fail("the export holds a token's secret");
  console.log(`exported ${file}`);

  // 5. Deletion: a wrong name refused; then the account deleted and the page signed out.
  await page.type("#delete-name", `${name}x`);
  await page.type("#delete-password", fresh);
  await page.click("#delete-account");
  await page.waitForFunction(() => document.querySelector("#delete-message")?.textContent?.startsWith("Type the account"), POLL);
  await page.click("#delete-name", { clickCount: 3 });
  await page.type("#delete-name", name);
  await shot(page, "account-delete");
  await page.click("#delete-account");
  await page.waitForSelector("#sign-in");
  await page.waitForFunction(() => location.hash === "#/", POLL);
  if (await cookie()) fail("the cookie outlived the deletion");
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("#sign-in");
  console.log("deleted");
  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("settings test passed");
} finally {
  await browser.close();
}
