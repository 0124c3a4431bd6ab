// The web page in a real browser: Debian's Chromium, headless, driven by puppeteer-core (which
// downloads no browser of its own). Against a running gin-server at URL it:
//   1. opens the lobby and starts a game against the `random` house bot;
//   2. plays that game to its end by clicks only (draw, select a card, discard, or knock
//      with its confirmation; a card dragged onto the pile with the mouse; each hand's
//      result held until Continue), the way a person would, while
//   3. a second page watches the same game as a spectator;
//   4. verifies the deals in the page (against the record's decks), checks that the spectator
//      saw the same end, and saves screenshots (desktop and phone width) along the way;
//      nothing the page asks for is missing (no 404, an icon included).
// Usage: node test/browser.mjs URL SCREENSHOT_DIR   (CHROMIUM: the browser, default /usr/bin/chromium;
// GIN_TEST_RESTART=1: mid-game, print "restart the server" and wait for a line on stdin once
// the caller has restarted it)
import { mkdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { POLL, fail, launch, shot as chromeShot } from "./chromium.mjs";

const [url, shots] = process.argv.slice(2);
if (!url || !shots) {
  console.error("usage: node test/browser.mjs URL SCREENSHOT_DIR");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
/** The next line the caller writes on stdin (it says the server restarted). */
const lines = createInterface({ input: process.stdin });
const input = lines[Symbol.asyncIterator]();
const nextInput = async () => (await input.next()).value;

const shot = (p, name) => chromeShot(p, shots, name);

const browser = await launch();
try {
  const page = await browser.newPage();
  // A cold browser on a loaded 2-core machine can be slow: generous waits (the test's own
  // deadline bounds the whole game).
  page.setDefaultTimeout(60_000);
  await page.setViewport({ width: 1100, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Nothing the page asks for is missing (an icon included).
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`);
  });

  // 1. The lobby.
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("#play-bot");
  await shot(page, "lobby");
  await page.type("#name", "ada");
  await page.select("#bot", "random");
  await page.click("#play-bot");
  await page.waitForFunction(() => location.hash.startsWith("#/play/"), POLL);
  const gameId = await page.evaluate(() => location.hash.split("/")[2]);
  console.log(`game ${gameId}`);
  await page.waitForSelector("#status");

  // 3. A spectator's page on the same game.
  const watcher = await browser.newPage();
  watcher.setDefaultTimeout(60_000);
  await watcher.setViewport({ width: 390, height: 844 });
  await watcher.goto(`${url}#/watch/${gameId}`, { waitUntil: "load" });
  await watcher.waitForSelector(".spectator");
  if (await watcher.$("section.hand")) fail("a spectator sees a hand");

  // 2. Play by clicks until the game is over.
  await page.bringToFront();
  const status = () => page.$eval("#status", (e) => e.textContent ?? "");
  let moves = 0;
  let knocks = 0;
  let shotMid = false;
  let keyboardTurn = false;
  let reloaded = false;
  let restarted = false;
  let dragged = false;
  let held = 0;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (Date.now() > deadline) fail(`the game did not end in 4 minutes (${moves} moves; status: ${await status()})`);
    if (await page.$("#continue")) {
      // A hand's result, held in place of the table until the player continues.
      if (await page.$("section.table")) fail("the table is shown with the hand's result");
      if (held === 0) await shot(page, "hand-over");
      // (Redrawn under the click: seen again above.)
      if (await page.click("#continue").then(() => true, () => false)) held += 1;
      continue;
    }
    const now = await status();
    if (now.startsWith("Game over")) break;
    if (!now.startsWith("Your turn")) {
      await page.waitForFunction((before) => document.querySelector("#status")?.textContent !== before || !!document.querySelector("#continue"), POLL, now);
      continue;
    }
    const seqBefore = await page.$eval("#app", (e) => e.dataset.seq);
    if (moves >= 4 && !keyboardTurn && (await page.$("#draw-stock"))) {
      // One whole turn from the keyboard alone: focus and Enter, as a keyboard user would
      // after tabbing there: draw, then the suggested card twice (select, discard).
      keyboardTurn = true;
      await page.focus("#draw-stock");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => !!document.querySelector("[data-suggested=true]") && document.querySelector("#app")?.dataset.busy === "", POLL);
      const card = await page.$eval("[data-suggested=true]", (e) => e.id);
      await page.focus(`#${card}`);
      await page.keyboard.press("Enter");
      await page.waitForSelector(`#${card}[aria-pressed=true]`);
      // The selected card keeps the focus across the redraw: Enter again discards it.
      if ((await page.evaluate(() => document.activeElement?.id)) !== card) fail("the selected card lost the focus");
      await page.keyboard.press("Enter");
      await page.waitForFunction((c) => !document.getElementById(c), POLL, card);
      moves += 2;
      console.log(`a turn by keyboard: drew, discarded ${card.slice(5)}`);
      continue;
    }
    if (moves >= 12 && !restarted && process.env.GIN_TEST_RESTART === "1") {
      // The server restarts mid-game (the caller stops it and starts it again at its address,
      // on the same database): the page says it lost the server, reconnects, resumes the
      // stream after the last event it saw, and the game goes on.
      restarted = true;
      const sawDrop = page.waitForSelector(".connection", { timeout: 60_000 });
      console.log("restart the server");
      await nextInput();
      await sawDrop;
      await page.waitForFunction(() => !document.querySelector(".connection"), POLL);
      console.log("the page resumed after the restart");
      continue;
    }
    if (moves >= 10 && !dragged && (await page.$("[data-suggested=true].draggable"))) {
      // A discard by dragging the card onto the pile with the mouse.
      dragged = true;
      const card = await page.$eval("[data-suggested=true]", (e) => e.id);
      const from = await (await page.$(`#${card}`)).boundingBox();
      const to = await (await page.$("#pile")).boundingBox();
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
      await page.mouse.up();
      await page.waitForFunction((c) => !document.getElementById(c), POLL, card);
      console.log(`discarded ${card.slice(5)} by dragging it onto the pile`);
      moves += 1;
      continue;
    }
    if (moves >= 8 && !reloaded) {
      // A reload mid-game: the seat's token is kept in the browser, the game picks up.
      reloaded = true;
      await page.reload({ waitUntil: "load" });
      await page.waitForSelector("#status");
      await page.waitForFunction(() => document.querySelector("section.hand .card"), POLL);
      continue;
    }
    if (await page.$("#pass")) {
      await page.click("#pass");
    } else if (await page.$("#draw-stock")) {
      await page.click("#draw-stock");
    } else {
      if (!(await page.$("[data-suggested=true]"))) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      await page.click("[data-suggested=true]");
      await page.waitForSelector("#discard, #knock");
      // No knock in the first hand, so that it is not the game's last (a gin against
      // `random`'s deadwood may reach the target at once) and its result is held.
      if (held > 0 && (await page.$("#knock"))) {
        if (!shotMid) {
          await shot(page, "knock");
        }
        await page.click("#knock");
        await page.waitForSelector("#confirm-yes");
        await page.click("#confirm-yes");
        knocks += 1;
      } else {
        await page.click("#discard");
      }
    }
    moves += 1;
    if (moves >= 12 && !shotMid) {
      shotMid = true;
      // Every control has a name a screen reader says.
      const unnamed = await page.$$eval("button, input, select, [role=img]", (els) =>
        els.filter((e) => !(e.getAttribute("aria-label") || e.textContent?.trim() || (e.id && document.querySelector(`label[for="${e.id}"]`)))).map((e) => e.outerHTML.slice(0, 80)));
      if (unnamed.length) fail(`controls without a name: ${unnamed.join(", ")}`);
      await shot(page, "game");
      await shot(watcher, "watch-phone");
      await page.bringToFront();
    }
    // The page redraws after the move is acknowledged and the new snapshot read.
    await page.waitForFunction((before) => {
      const app = document.querySelector("#app");
      return app?.dataset.busy === "" && (app.dataset.seq !== before || !!document.querySelector("#message"));
    }, POLL, seqBefore);
    const message = await page.$eval("#message", (e) => e.textContent).catch(() => "");
    if (message) fail(`a move was refused: ${message}`);
  }
  const final = await status();
  console.log(`${moves} moves, ${knocks} knocks, ${held} results held until continued; ${final}`);
  if (knocks === 0) fail("the game ended without a knock by the page's player");
  if (held === 0) fail("no hand's result was held until continued");
  await shot(page, "game-over");
  // The score sheet and the last hand are shown.
  await page.waitForSelector("table[aria-label='score sheet'] tfoot");
  await page.waitForSelector("#last-hand");

  // Verify the deals in the browser: every hand's reveal against its commitment, as
  // published at the deal (the page noted each) and as the record's deck.
  await page.click("#verify");
  await page.waitForSelector("#verdict");
  const verdict = await page.$eval("#verdict", (e) => e.textContent);
  if (!/All \d+ deals verified/.test(verdict) || !verdict.includes("as published") || !verdict.includes("the record's deck")) {
    fail(`verification: ${verdict}`);
  }
  await shot(page, "verified");
  // A commitment other than the one revealed, as if the server had published another: caught.
  await page.evaluate((id) => {
    const key = `gin.published.${id}`;
    const all = JSON.parse(localStorage.getItem(key));
    all[0] = "00".repeat(32);
    localStorage.setItem(key, JSON.stringify(all));
  }, gameId);
  await page.click("#verify");
  await page.waitForFunction(() => document.querySelector("#verdict")?.textContent?.includes("FAILED"), POLL);
  const tampered = await page.$eval("#verdict", (e) => e.textContent);
  if (!tampered.includes("hand 1: FAILED: the commitment published at the deal was 000000")) fail(`tampered: ${tampered}`);
  console.log(`verified: ${verdict.split("hand")[0]}`);

  // 4. The spectator saw the same end.
  await watcher.bringToFront();
  await watcher.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Game over"), POLL).catch(async (e) => {
    const seen = await watcher.evaluate(() => `${document.querySelector("#status")?.textContent} (seq ${document.querySelector("#app")?.dataset.seq}); ${document.querySelector(".connection")?.textContent ?? ""}`);
    await shot(watcher, "watch-stuck");
    fail(`the spectator's page did not see the end: it shows ${seen}: ${e}`);
  });
  const watched = await watcher.$eval("#status", (e) => e.textContent);
  if (watched.replace(/ \(you\)/g, "") !== final.replace(/ \(you\)/g, "")) fail(`the spectator saw "${watched}", the player "${final}"`);
  await shot(watcher, "watch-over-phone");

  // 5. Create a game to share; a second person (another browser profile) joins by its link;
  //    both see the game start; the creator resigns and both see the end.
  await page.bringToFront();
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("#create");
  await page.click("#create");
  await page.waitForSelector("#share-link");
  const link = await page.$eval("#share-link", (e) => e.value);
  if (!link.includes("#/join/")) fail(`share link ${link}`);
  const other = await browser.createBrowserContext();
  const friend = await other.newPage();
  friend.setDefaultTimeout(60_000);
  await friend.goto(link, { waitUntil: "load" });
  await friend.waitForSelector("#join");
  await friend.type("#join-name", "bea");
  await friend.click("#join");
  await friend.waitForSelector("#status");
  await friend.waitForFunction(() => /Your turn|Waiting for ada/.test(document.querySelector("#status")?.textContent ?? ""), POLL);
  await page.bringToFront();
  await page.waitForFunction(() => /Your turn|Waiting for bea/.test(document.querySelector("#status")?.textContent ?? ""), POLL);
  await page.click("#resign");
  await page.waitForSelector("#confirm-yes");
  await page.click("#confirm-yes");
  await page.waitForFunction(() => document.querySelector("#status")?.textContent?.includes("resigned"), POLL);
  await friend.bringToFront();
  await friend.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Game over: bea (you) won (resigned)"), POLL);
  await other.close();
  console.log("shared and joined by link; resigned");

  // 8. Quick match: two people (two browser profiles) asking for the same game are paired
  //    with each other (the house bot would come only after 20 s).
  const third = await browser.createBrowserContext();
  const cy = await third.newPage();
  cy.setDefaultTimeout(60_000);
  for (const p of [page, cy]) {
    await p.goto(url, { waitUntil: "load" });
    await p.waitForSelector("#quick-match");
  }
  await page.click("#quick-match");
  await cy.click("#quick-match");
  for (const p of [page, cy]) {
    await p.bringToFront();
    await p.waitForFunction(() => location.hash.startsWith("#/play/"), POLL);
  }
  const [qa, qb] = await Promise.all([page, cy].map((p) => p.evaluate(() => location.hash.split("/")[2])));
  if (qa !== qb) fail(`quick match paired them into two games: ${qa} and ${qb}`);
  await page.bringToFront();
  await page.waitForFunction(() => /Your turn|Waiting for/.test(document.querySelector("#status")?.textContent ?? ""), POLL);
  const seats = await page.$eval(".seats", (e) => e.textContent);
  if (seats.includes("(bot)")) fail(`a house bot took the seat: ${seats}`);
  await page.click("#resign");
  await page.waitForSelector("#confirm-yes");
  await page.click("#confirm-yes");
  await cy.bringToFront();
  await cy.waitForFunction(() => document.querySelector("#status")?.textContent?.includes("(resigned)"), POLL);
  await third.close();
  await page.bringToFront();
  console.log(`quick match paired two browsers in game ${qa}`);

  // 7. Rummy at a table of three against two house bots, by clicks: melds and lay-offs laid
  //    with their buttons, cards discarded by clicking them, to the end of the game.
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("#format");
  const rummy = await page.$$eval("#format option", (os) => os.find((o) => o.textContent.startsWith("Rummy")).value);
  await page.select("#bot", "strong");
  await page.select("#format", rummy);
  // The house bots offered are those the server plays at the table: `strong` at rummy too
  // (the table search), and the choice is kept.
  const offered = async () => page.$$eval("#bot option", (os) => os.map((o) => o.value).join(" "));
  if ((await offered()) !== "simple strong random") fail(`house bots offered at rummy: ${await offered()}`);
  if ((await page.$eval("#bot", (e) => e.value)) !== "strong") fail("the house bot chosen was not kept");
  await page.select("#players", "3");
  await page.select("#bot", "simple");
  await page.click("#play-bot");
  await page.waitForFunction(() => location.hash.startsWith("#/play/"), POLL);
  await page.waitForSelector("#status");
  let laid = 0;
  let turns = 0;
  const rummyDeadline = Date.now() + 240_000;
  for (;;) {
    if (Date.now() > rummyDeadline) fail(`the rummy game did not end in 4 minutes (status: ${await status()})`);
    if (await page.$("#continue")) {
      await page.click("#continue").catch(() => {}); // redrawn under the click: seen again above
      continue;
    }
    const now = await status();
    if (now.startsWith("Game over")) break;
    if (!now.startsWith("Your turn")) {
      await page.waitForFunction((before) => document.querySelector("#status")?.textContent !== before || !!document.querySelector("#continue"), POLL, now);
      continue;
    }
    const before = await page.$eval("#app", (e) => e.dataset.seq);
    const lay = await page.$("button[id^=meld-], button[id^=layoff-]");
    if (lay) {
      await page.click("button[id^=meld-], button[id^=layoff-]");
      laid += 1;
      if (laid === 1) await shot(page, "rummy-laid");
    } else if (await page.$("#draw-stock")) {
      await page.click("#draw-stock");
    } else {
      const card = await page.$$eval("section.hand button.card", (bs) => bs.filter((b) => b.getAttribute("aria-label").endsWith(": select")).map((b) => b.id).pop());
      if (!card) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      await page.click(`#${card}`);
      await page.waitForSelector("#discard");
      await page.click("#discard");
      turns += 1;
    }
    await page.waitForFunction((b) => {
      const app = document.querySelector("#app");
      return app?.dataset.busy === "" && (app.dataset.seq !== b || !!document.querySelector("#message"));
    }, POLL, before);
    const message = await page.$eval("#message", (e) => e.textContent).catch(() => "");
    if (message) fail(`a rummy move was refused: ${message}`);
  }
  await page.waitForSelector("table[aria-label='score sheet'] tfoot");
  await shot(page, "rummy-over");
  console.log(`rummy: ${turns} discards, ${laid} melds and lay-offs; ${await status()}`);

  // 6. The lobby at phone width.
  await page.setViewport({ width: 390, height: 844 });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector("#play-bot");
  await shot(page, "lobby-phone");

  if (errors.length) fail(`errors in the page: ${errors.join("; ")}`);
  console.log("browser test passed");
} finally {
  await browser.close();
  // Stdin stays open while the caller runs: close it, or the process would wait on it.
  lines.close();
  process.stdin.destroy();
}
