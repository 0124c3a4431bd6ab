// Challenges and ratings in a real browser (Debian's Chromium via puppeteer-core), against
// gin-server at URL, with the caller running the bot account BOT (gin-sdk) and reading the
// server's own values to check what this prints:
//   1. registers NAME from the page; BOT's challenge to it shows in the challenges panel, and
//      is declined there ("declined BOT's challenge"); BOT's next one is accepted there: the
//      page goes to its game, where NAME resigns ("accepted BOT's challenge: game ID, resigned");
//   2. opens BOT's profile, sends it a casual challenge and cancels it from the panel; then
//      challenges it to a rated game, standard preset, and prints "challenge sent" (the
//      caller then has BOT accept it and play);
//   3. goes to the game when it is accepted, and plays it by clicks to its end;
//   4. its own profile shows the new rating: printed as "profile rating POOL RATING ±DEV
//      GAMES RANK POINTS" (RANK "provisional" or "#N"; POINTS the chart's, oldest first);
//   5. the leaderboard page, from the home page's link: prints "leaderboard line NAME RATING
//      ±DEV GAMES" per line shown and "leaderboard yours RATING ±DEV provisional|rank N".
// Usage: node test/challenge.mjs URL NAME PASSWORD BOT [SCREENSHOT_DIR]
import { POLL, fail, launch, playToEnd, shot as chromeShot } from "./chromium.mjs";

const [url, name, password, bot, shots] = process.argv.slice(2);
const shot = async (p, what) => {
  if (shots) await chromeShot(p, shots, what);
};
if (!url || !name || !password || !bot) {
  console.error("usage: node test/challenge.mjs URL NAME PASSWORD BOT [SCREENSHOT_DIR]");
  process.exit(2);
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

  // 1. Register from the page; a challenge received is declined from the panel.
  await page.goto(url, { waitUntil: "load" });
  await click("#sign-in");
  await page.waitForSelector("#account-name");
  await page.type("#account-name", name);
  await page.type("#account-password", password);
  await click("#register");
  await page.waitForSelector("#me");
  console.log(`registered ${name}`);
  await page.waitForSelector("#challenges-received li.challenge");
  const received = await page.$eval("#challenges-received li.challenge", (e) => e.textContent ?? "");
  if (!received.includes(`${bot} challenges you`) || !received.includes("casual")) fail(`the received challenge reads ${received}`);
  await shot(page, "challenge-received");
  await click("#challenges-received li.challenge button.decline");
  await page.waitForFunction(() => !document.querySelector("#challenges-received"), POLL);
  console.log(`declined ${bot}'s challenge`);
  // The caller has the bot send another: accepted here, the page goes to its game, resigned.
  await page.waitForSelector("#challenges-received li.challenge button.accept");
  await click("#challenges-received li.challenge button.accept");
  await page.waitForFunction(() => location.hash.startsWith("#/play/"), POLL);
  const casual = await page.evaluate(() => location.hash.split("/")[2]);
  await page.waitForFunction((n) => document.querySelector(".seats")?.textContent?.includes(`${n} (you)`), POLL, name);
  if (await page.$("#challenges-received")) fail("the accepted challenge is still listed");
  await page.waitForSelector("#resign:not([disabled])");
  await click("#resign");
  await page.waitForSelector("#confirm-yes");
  await click("#confirm-yes");
  await page.waitForFunction(() => document.querySelector("#status")?.textContent?.includes("(resigned)"), POLL);
  console.log(`accepted ${bot}'s challenge: game ${casual}, resigned`);

  // 2. The bot's profile: a casual challenge sent and cancelled, then a rated one.
  await page.evaluate((b) => { location.hash = `#/player/${encodeURIComponent(b)}`; }, bot);
  await page.waitForFunction(() => document.querySelector("#player-about")?.textContent?.startsWith("a bot"), POLL);
  await page.waitForSelector("#challenge-send");
  await page.select("#challenge-game", "0");
  if (await page.$eval("#challenge-rated", (e) => e.checked)) await click("#challenge-rated");
  await click("#challenge-send");
  await page.waitForSelector("#challenges-sent li.challenge");
  const sent = await page.$eval("#challenges-sent li.challenge", (e) => e.textContent ?? "");
  if (!sent.includes(`You challenged ${bot}`) || !sent.includes("casual")) fail(`the sent challenge reads ${sent}`);
  await click("#challenges-sent li.challenge button.cancel");
  await page.waitForFunction(() => !document.querySelector("#challenges-sent"), POLL);
  console.log("cancelled a casual challenge");
  await click("#challenge-rated");
  if (!(await page.$eval("#challenge-rated", (e) => e.checked))) fail("rated is not ticked");
  await click("#challenge-send");
  await page.waitForSelector("#challenges-sent li.challenge");
  const rated = await page.$eval("#challenges-sent li.challenge", (e) => e.textContent ?? "");
  if (!rated.includes("gin (standard), rated")) fail(`the sent challenge reads ${rated}`);
  await shot(page, "challenge-sent");
  console.log("challenge sent");

  // 3. Accepted by the bot: the page goes to the game, the account's seat its own.
  await page.waitForFunction(() => location.hash.startsWith("#/play/"), { ...POLL, timeout: 60_000 });
  const gameId = await page.evaluate(() => location.hash.split("/")[2]);
  console.log(`game ${gameId}`);
  await page.waitForSelector("#status");
  await page.waitForFunction((n) => document.querySelector(".seats")?.textContent?.includes(`${n} (you)`), POLL, name);
  if (await page.$("#challenges-sent")) fail("the accepted challenge is still listed");
  const { moves, status } = await playToEnd(page);
  console.log(`${moves} moves; ${status}`);

  // 4. The profile: the rating in the pool, its chart.
  await click("#me");
  await page.waitForFunction((n) => location.hash === `#/player/${encodeURIComponent(n)}`, POLL, name);
  const row = '.pool-rating[data-pool="gin/standard"]';
  await page.waitForSelector(`${row} svg.sparkline`);
  const cells = await page.$eval(row, (e) => ({
    rating: e.querySelector(".rating")?.textContent,
    deviation: e.querySelector(".deviation")?.textContent,
    games: e.querySelector(".pool-games")?.textContent,
    rank: e.querySelector(".rank")?.textContent,
    points: e.querySelector("svg.sparkline")?.dataset.points,
    drawn: !!e.querySelector("svg.sparkline polyline") && !!e.querySelector("svg.sparkline circle"),
  }));
  if (!cells.drawn) fail("no chart drawn");
  if (await page.$("#challenge-send")) fail("one's own profile offers a challenge");
  await shot(page, "profile-ratings");
  console.log(`profile rating gin/standard ${cells.rating} ${cells.deviation} ${cells.games} ${cells.rank} ${cells.points}`);

  // 5. The leaderboard, from the home page.
  await click(".brand");
  await page.waitForSelector("#leaderboard-link");
  await click("#leaderboard-link");
  await page.waitForFunction(() => location.hash === "#/leaderboard/gin/standard", POLL);
  await page.waitForSelector("#your-rating strong.rating");
  await page.waitForFunction(() => document.querySelector("#leaderboard-lines tr"), POLL);
  if ((await page.$eval("#pool", (e) => e.value)) !== "gin/standard") fail("the picker is not on gin/standard");
  const lines = await page.$$eval("#leaderboard-lines tr.leaderboard-line", (rows) =>
    rows.map((r) => {
      const td = [...r.querySelectorAll("td")].map((c) => c.textContent ?? "");
      const who = r.querySelector("td a")?.textContent ?? "";
      return `${who}${r.querySelector("td .tag")?.textContent === "bot" ? " (bot)" : ""} ${td[2]} ${td[3]} ${td[4]} rank ${td[0]}`;
    }));
  if (lines.length === 0) fail("no leaderboard lines");
  for (const l of lines) console.log(`leaderboard line ${l}`);
  const yours = await page.$eval("#your-rating", (e) => ({
    rating: e.querySelector("strong.rating")?.textContent,
    text: e.textContent ?? "",
  }));
  const dev = /±(\d+)/.exec(yours.text)?.[1];
  const standing = yours.text.includes("provisional") ? "provisional" : `rank ${/rank (\d+)/.exec(yours.text)?.[1]}`;
  await shot(page, "leaderboard");
  console.log(`leaderboard yours ${yours.rating} ±${dev} ${standing}`);
  // The picker goes to another pool's board.
  await page.select("#pool", "rummy/3");
  await page.waitForFunction(() => location.hash === "#/leaderboard/rummy/3", POLL);
  await page.waitForFunction(() => document.querySelector("#your-rating")?.textContent?.includes("no rated game in this pool"), POLL);
  console.log("picked another pool");
  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("challenge test passed");
} catch (e) {
  // What the page showed when it failed.
  const [p] = (await browser.pages()).slice(-1);
  if (p) {
    console.log(`failed at ${await p.evaluate(() => location.hash)}: ${await p.evaluate(() => document.body.innerText)}`);
    await shot(p, "challenge-failed").catch(() => {});
  }
  throw e;
} finally {
  await browser.close();
}
