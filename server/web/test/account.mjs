// Accounts in a real browser (Debian's Chromium via puppeteer-core), against gin-server at URL:
//   1. creates an account from the page (Sign in, then Create an account): the header names
//      it; the session cookie is HttpOnly (the page's script cannot read it);
//   2. plays a whole game against the `random` house bot by clicks, as the account;
//   3. opens its profile from the header and finds that game listed with its opponent;
//   4. signs out: the header says Sign in again and the cookie is gone. The caller checks
//      the cookie's old value is refused by the server (printed as "session cookie VALUE").
// Usage: node test/account.mjs URL NAME PASSWORD [SCREENSHOT_DIR]
import { POLL, fail, launch, playToEnd, shot as chromeShot } from "./chromium.mjs";

const [url, name, password, shots] = process.argv.slice(2);
const shot = async (p, what) => {
  if (shots) await chromeShot(p, shots, what);
};
if (!url || !name || !password) {
  console.error("usage: node test/account.mjs URL NAME PASSWORD");
  process.exit(2);
}

const browser = await launch();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  await page.setViewport({ width: 1100, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`);
  });

  // 1. Register from the page.
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("#sign-in");
  await page.click("#sign-in");
  await page.waitForSelector("#account-name");
  await shot(page, "signin");
  await page.type("#account-name", name);
  await page.type("#account-password", password);
  await page.click("#register");
  await page.waitForSelector("#me");
  const shown = await page.$eval("#me", (e) => e.textContent);
  if (shown !== name) fail(`the header names ${shown}`);
  const cookies = await page.cookies();
  const session = cookies.find((c) => c.name === "gin_session");
  if (!session) fail(`no session cookie: ${JSON.stringify(cookies)}`);
  if (!session.httpOnly || session.sameSite !== "Strict" || session.path !== "/") fail(`the cookie is ${JSON.stringify(session)}`);
  if ((await page.evaluate(() => document.cookie)).includes("gin_session")) fail("the page's script sees the session");
  if ((await page.evaluate(() => JSON.stringify(localStorage))).includes(session.value)) fail("the token is in localStorage");
  console.log(`registered ${name} from the page`);
  console.log(`session cookie ${session.value}`);

  // 2. A whole game against the random house bot, by clicks.
  await page.waitForSelector("#play-bot");
  if ((await page.$eval("#name", (e) => [e.value, e.disabled].join())) !== `${name},true`) fail("the lobby does not play as the account");
  await page.select("#bot", "random");
  await page.click("#play-bot");
  await page.waitForFunction(() => location.hash.startsWith("#/play/"), POLL);
  const gameId = await page.evaluate(() => location.hash.split("/")[2]);
  console.log(`game ${gameId}`);
  await page.waitForSelector("#status");
  const seats = await page.$eval(".seats", (e) => e.textContent ?? "");
  if (!seats.includes(`${name} (you)`) || !seats.includes("(bot)") || seats.includes("(guest)")) fail(`the seats read ${seats}`);
  if (!(await page.$(`.seat.mine a[href="#/player/${encodeURIComponent(name)}"]`))) fail("the account's seat does not link its profile");
  console.log(`seats: ${seats}`);
  const { moves, status } = await playToEnd(page);
  console.log(`${moves} moves; ${status}`);

  // 3. The profile, one click from the header: the game, with its opponent.
  await page.click("#me");
  await page.waitForFunction((n) => location.hash === `#/player/${encodeURIComponent(n)}`, POLL, name);
  await page.waitForFunction(() => document.querySelector("#player-about")?.textContent?.startsWith("a person"), POLL);
  const row = `.player-game[data-game="${gameId}"]`;
  await page.waitForSelector(row);
  const listed = await page.$eval(row, (e) => [...e.querySelectorAll("td")].map((td) => td.textContent));
  if (!listed[2]?.includes("(bot)")) fail(`the game's opponent reads ${listed[2]}`);
  if (!["won", "lost", "drawn"].includes(listed[3] ?? "")) fail(`the game's result reads ${listed[3]}`);
  if (!(await page.$(`${row} a[href="#/watch/${gameId}"]`))) fail("the game is not linked");
  await shot(page, "profile");
  console.log(`profile lists game ${gameId} against ${listed[2]}: ${listed[3]}`);

  // 4. Sign out.
  await page.click("#sign-out");
  await page.waitForSelector("#sign-in");
  await page.waitForSelector("#play-bot");
  if ((await page.cookies()).some((c) => c.name === "gin_session")) fail("the cookie outlived the sign-out");
  // The page, reloaded, is a guest's.
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("#sign-in");
  console.log("signed out");
  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("account test passed");
} finally {
  await browser.close();
}
