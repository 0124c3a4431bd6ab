// The tournament page in Debian's Chromium (headless, puppeteer-core): opened on a tournament
// before its entrants join, it must follow it live to its end: standings of every entrant,
// the rating chart over the games played, and every game listed. Prints "page ready" once the
// page shows the tournament (the caller then starts the entrants), then "tournament page
// passed". Usage: node test/tournament.mjs URL TOURNAMENT_ID SCREENSHOT_DIR ENTRANTS
import { mkdirSync } from "node:fs";
import { POLL, fail, launch } from "./chromium.mjs";

const [url, id, shots, entrants] = process.argv.slice(2);
if (!url || !id || !shots || !entrants) {
  console.error("usage: node test/tournament.mjs URL TOURNAMENT_ID SCREENSHOT_DIR ENTRANTS");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const browser = await launch();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(120_000);
  await page.setViewport({ width: 1000, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${url}#/tournament/${id}`, { waitUntil: "load" });
  await page.waitForSelector("#app[data-status]");
  console.log("page ready");
  // Games in progress, listed with links to watch them (the games are short: seen when the
  // page reads the list while one runs).
  if (await page.waitForSelector("#running-games a", { timeout: 15_000 }).catch(() => null)) {
    await page.screenshot({ path: `${shots}/tournament-running.png`, fullPage: true });
    console.log("saw games in progress");
  }
  await page.waitForSelector("#app[data-status=finished]");
  // The last games list is read after the end.
  const total = await page.$eval("#app", (e) => Number(e.dataset.gamesDone));
  await page.waitForFunction((n) => document.querySelectorAll(".finished-games li").length === Math.min(n, 20), POLL, total);
  const rows = await page.$$eval("#standings tbody tr", (trs) => trs.map((tr) => tr.textContent));
  if (rows.length !== Number(entrants)) fail(`${rows.length} standings rows: ${rows.join(" | ")}`);
  const lines = await page.$$eval("#rating-chart polyline", (ps) => ps.map((p) => p.getAttribute("points").split(" ").length));
  if (lines.length !== Number(entrants)) fail(`${lines.length} rating lines`);
  if (Math.max(...lines) < 2) fail(`the chart has one point per entrant: the page saw no progress (${lines})`);
  const label = await page.$eval("#rating-chart", (e) => e.getAttribute("aria-label"));
  if (!label.includes("Elo ratings")) fail(`chart label: ${label}`);
  await page.screenshot({ path: `${shots}/tournament-finished.png`, fullPage: true });
  // A page opened after the end draws the whole history too (the server's).
  const late = await browser.newPage();
  await late.goto(`${url}#/tournament/${id}`, { waitUntil: "load" });
  await late.waitForSelector("#rating-chart polyline");
  await late.waitForFunction((n) => [...document.querySelectorAll("#rating-chart polyline")].every((p) => p.getAttribute("points").split(" ").length >= n), POLL, 2);
  const lateLines = await late.$$eval("#rating-chart polyline", (ps) => ps.map((p) => p.getAttribute("points").split(" ").length));
  console.log(`a page opened after the end charts ${lateLines.join("/")} points`);
  await late.close();
  // A finished game is a click away from its page.
  await page.click(".finished-games li a");
  await page.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Game over"), POLL);
  if (errors.length) fail(`errors in the page: ${errors.join("; ")}`);
  console.log(`standings: ${rows.join(" | ")}`);
  console.log("tournament page passed");
} finally {
  await browser.close();
}
