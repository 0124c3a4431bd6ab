// The rated ladder in a real browser (Debian's Chromium via puppeteer-core), against gin-server
// at URL, with the caller running a gin-sdk program in the same pool and reading the server's
// own values to check what this prints:
//   1. a guest sees the Ladder panel with "Sign in to join" ("guest sees the ladder");
//   2. registers NAME from the page; joins gin/standard from the panel and prints the waiting
//      line as "waiting POOL RATING ±DEV provisional|established WAITING"; leaves it ("Leave")
//      and prints "left" once the panel's count of gin/standard is 0 again;
//   3. joins again and prints the waiting line as "waiting again …" (the caller then has its
//      program join the pool: the two are seated together);
//   4. the page goes to the game ("game ID"), the account's seat its own, and plays it by
//      clicks to its end;
//   5. its own profile shows the new rating: "profile rating POOL RATING ±DEV GAMES RANK".
// Usage: node test/ladder.mjs URL NAME PASSWORD [SCREENSHOT_DIR]
import { POLL, fail, launch, playToEnd, shot as chromeShot } from "./chromium.mjs";

const [url, name, password, shots] = process.argv.slice(2);
const shot = async (p, what) => {
  if (shots) await chromeShot(p, shots, what);
};
if (!url || !name || !password) {
  console.error("usage: node test/ladder.mjs URL NAME PASSWORD [SCREENSHOT_DIR]");
  process.exit(2);
}
const POOL = "gin/standard";
const row = `#ladder tr.ladder-pool[data-pool="${POOL}"]`;

/** The waiting line: "POOL RATING ±DEV provisional|established WAITING". */
async function waitingLine(page) {
  await page.waitForSelector("#ladder-waiting strong.rating");
  return page.$eval("#ladder-waiting", (e) => [
    e.dataset.pool,
    e.querySelector(".rating")?.textContent,
    e.querySelector(".deviation")?.textContent,
    e.querySelector(".tag.provisional") ? "provisional" : "established",
    e.querySelector(".waiting")?.textContent,
    `waited ${e.querySelector(".waited")?.textContent}`,
    `expected ${e.querySelector(".expected")?.textContent}`,
  ].join(" "));
}

const browser = await launch();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  // A click waits for its element (the page renders after its scripts load).
  const click = async (sel) => {
    await page.waitForSelector(sel);
    await page.click(sel);
  };
  await page.setViewport({ width: 1100, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`);
  });

  // 1. A guest: the pools, no Join.
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector(`${row} td.waiting`);
  await page.waitForSelector("#ladder-guest");
  if (!(await page.$eval("#ladder-guest", (e) => e.textContent ?? "")).includes("Sign in to join")) fail("no 'Sign in to join'");
  if (await page.$("#ladder button.join")) fail("a guest is offered Join");
  const pools = await page.$$eval("#ladder tr.ladder-pool", (rows) => rows.map((r) => r.dataset.pool));
  for (const p of ["gin/standard", "gin/oklahoma", "three-player", "teams", "gin-7/4", "rummy/2"]) {
    if (!pools.includes(p)) fail(`the panel lacks ${p}: ${pools.join(", ")}`);
  }
  console.log("guest sees the ladder");

  // 2. Registered: join, then leave.
  await click("#sign-in");
  await page.waitForSelector("#account-name");
  await page.type("#account-name", name);
  await page.type("#account-password", password);
  await click("#register");
  await page.waitForSelector("#me");
  console.log(`registered ${name}`);
  await page.waitForSelector(`${row} button.join`);
  if (await page.$("#ladder-guest")) fail("'Sign in to join' signed in");
  await click(`${row} button.join`);
  console.log(`waiting ${await waitingLine(page)}`);
  await page.waitForFunction((r) => document.querySelector(`${r} td.waiting`)?.textContent === "1", POLL, row);
  if (!(await page.$eval(`${row} button.join`, (b) => b.disabled))) fail("Join offered while waiting");
  await shot(page, "ladder-waiting");
  await click("#ladder-leave");
  await page.waitForFunction(() => !document.querySelector("#ladder-waiting"), POLL);
  await page.waitForFunction((r) => document.querySelector(`${r} td.waiting`)?.textContent === "0", POLL, row);
  console.log("left");

  // 3. Join again: the caller's program joins too.
  await page.waitForSelector(`${row} button.join:not([disabled])`);
  await click(`${row} button.join`);
  console.log(`waiting again ${await waitingLine(page)}`);

  // 4. Seated: the page goes to the game, the account's seat its own.
  await page.waitForFunction(() => location.hash.startsWith("#/play/"), { ...POLL, timeout: 60_000 });
  const gameId = await page.evaluate(() => location.hash.split("/")[2]);
  console.log(`game ${gameId}`);
  await page.waitForSelector("#status");
  await page.waitForFunction((n) => document.querySelector(".seats")?.textContent?.includes(`${n} (you)`), POLL, name);
  await shot(page, "ladder-game");
  const { moves, status } = await playToEnd(page);
  console.log(`${moves} moves; ${status}`);

  // 5. The profile: the new rating.
  await click("#me");
  await page.waitForFunction((n) => location.hash === `#/player/${encodeURIComponent(n)}`, POLL, name);
  const pr = `.pool-rating[data-pool="${POOL}"]`;
  await page.waitForSelector(pr);
  const cells = await page.$eval(pr, (e) => ({
    rating: e.querySelector(".rating")?.textContent,
    deviation: e.querySelector(".deviation")?.textContent,
    games: e.querySelector(".pool-games")?.textContent,
    rank: e.querySelector(".rank")?.textContent,
  }));
  await shot(page, "ladder-profile");
  console.log(`profile rating ${POOL} ${cells.rating} ${cells.deviation} ${cells.games} ${cells.rank}`);
  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("ladder test passed");
} catch (e) {
  const [p] = (await browser.pages()).slice(-1);
  if (p) {
    console.log(`failed at ${await p.evaluate(() => location.hash)}: ${await p.evaluate(() => document.body.innerText)}`);
    await shot(p, "ladder-failed").catch(() => {});
  }
  throw e;
} finally {
  await browser.close();
}
