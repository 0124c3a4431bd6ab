// Every format verified in the browser (Debian's Chromium, headless, puppeteer-core): for each
// game given, the page watches it from before its first deal (noting each commitment
// published with the deals), then, once it is over, "Verify the deals" must check the seed
// against its commitment as published and every hand's deck; a seed commitment other than
// the one the page saw published must fail the check.
//
// Usage: node test/verify_formats.mjs URL SCREENSHOT_DIR LABEL=GAME_ID...
// Each game waits for a player at seat 0: the script prints "watching GAME_ID" once the page
// follows it and reads a line on stdin once the caller has played it to its end. Prints
// "verified LABEL: HEADLINE" per game, then "formats verified".
import { mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { POLL, fail, launch, shot } from "./chromium.mjs";

const [url, shots, ...games] = process.argv.slice(2);
if (!url || !shots || games.length === 0) {
  console.error("usage: node test/verify_formats.mjs URL SCREENSHOT_DIR LABEL=GAME_ID...");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const rl = createInterface({ input: process.stdin });
const stdin = rl[Symbol.asyncIterator]();
const browser = await launch();
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(120_000);
  await page.setViewport({ width: 1000, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  for (const game of games) {
    const [label, id] = game.split("=");
    await page.goto(`${url}#/watch/${id}`, { waitUntil: "load" });
    await page.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Waiting for players"), POLL);
    console.log(`watching ${id}`);
    const played = await stdin.next();
    if (played.done) fail("stdin closed before the game was played");
    await page.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Game over"), POLL);
    await page.click("#verify");
    await page.waitForSelector("#verdict");
    const lines = await page.$$eval("#verdict li", (lis) => lis.map((li) => li.textContent));
    const headline = await page.$eval("#verdict p", (e) => e.textContent);
    const hands = lines.filter((l) => l.startsWith("hand "));
    if (headline !== `All ${hands.length} deals verified.`) fail(`${label}: ${headline} ${lines.join(" | ")}`);
    if (!lines[0].startsWith("seed: verified (hash, as published with the deals) · commitment ")) fail(`${label}: ${lines[0]}`);
    for (const l of hands) {
      if (!/^hand \d+: verified \(hash, as published, the record's deck\)/.test(l)) fail(`${label}: ${l}`);
    }
    await shot(page, shots, `verified-${label}`);
    // A seed commitment other than the one revealed, as if the server had published another.
    await page.evaluate((id) => {
      const key = `gin.published.${id}`;
      const all = JSON.parse(localStorage.getItem(key));
      all.seed = "00".repeat(32);
      localStorage.setItem(key, JSON.stringify(all));
    }, id);
    await page.click("#verify");
    await page.waitForFunction(() => document.querySelector("#verdict p")?.textContent?.includes("FAILED"), POLL);
    const tampered = await page.$eval("#verdict li", (e) => e.textContent);
    if (!tampered.startsWith("seed: FAILED: the seed commitment published with the deals was 000000")) fail(`${label} tampered: ${tampered}`);
    console.log(`verified ${label}: ${headline}`);
  }
  if (errors.length) fail(`errors in the page: ${errors.join("; ")}`);
  console.log("formats verified");
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exitCode = 1;
} finally {
  await browser.close();
  rl.close(); // stdin stays open (the caller's pipe): the script would not end
}
