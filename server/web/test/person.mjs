// The page as a person plays it, in Debian's Chromium (headless, puppeteer-core):
//   1. on a phone (390x844, touch only: every press a tap, the drag a touch drag), a game
//      against the `random` house bot, until a hand has ended and the next has been played
//      a little (in another game if one ends first): the player's seat is marked; the hand's order is changed (melds first, by
//      suit, by rank); taking the pile's card and then dragging it onto the pile, or pressing
//      it, says why it may not be discarded, visibly, where the player looks; a card is dragged onto the pile by touch;
//      one discard answered UNAVAILABLE (as by a server whose game moved) is sent again, with
//      the same expected seq, and played once; the hand's result is held in place of the
//      table, on screen, until the player continues;
//   2. at a desktop (1280x800), a game of gin for three to six at one table (GIN7_ID, the seat
//      SEAT with TOKEN, made by the caller with two house bots and a short end) played by
//      clicks to its end (its stream first answered UNAVAILABLE and opened again; the hand's
//      order changed with the `o` key on the way): the final score names each player, best first, with its net and
//      what the net is; the score sheet shows points won, penalties and places.
// Every page load asks for nothing the server lacks (no 404, no error in the console).
//      If that game's hands all ended between two of the page's updates, so that no result was
//      held, the next spare game (the same, made by the caller too) is played.
// Usage: node test/person.mjs URL SCREENSHOT_DIR GIN7_ID SEAT TOKEN [GIN7_ID SEAT TOKEN]...
import { mkdirSync } from "node:fs";
import { POLL, fail, launch, shot as chromeShot } from "./chromium.mjs";

const [url, shots, ...rest] = process.argv.slice(2);
/** The gin-7 games for the desktop: the first, then spares (see 2. below). */
const games = [];
for (let i = 0; i + 2 < rest.length; i += 3) games.push(rest.slice(i, i + 3));
if (!url || !shots || games.length === 0 || rest.length % 3 !== 0) {
  console.error("usage: node test/person.mjs URL SCREENSHOT_DIR GIN7_ID SEAT TOKEN [GIN7_ID SEAT TOKEN]...");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const shot = (p, name) => chromeShot(p, shots, name);

/** Whether `sel` comes to lie wholly within the viewport, as it is scrolled, within 3 s. */
const onScreen = (p, sel) => p.waitForFunction((s) => {
  const r = document.querySelector(s)?.getBoundingClientRect();
  return !!r && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth && r.height > 0;
}, { ...POLL, timeout: 3000 }, sel).then(() => true, () => false);

/** A card to discard: the suggested one, else the last that may be discarded (the server may
 * find the least deadwood in discarding the card just taken from the pile, which may not). */
async function pickDiscard(p) {
  await p.waitForSelector("section.hand button.card[aria-label$=': select'], [data-suggested=true]");
  return (await p.$("[data-suggested=true]"))
    ? p.$eval("[data-suggested=true]", (e) => e.id)
    : p.$$eval("section.hand button.card[aria-label$=': select']", (es) => es[es.length - 1].id);
}

/** Drags `from` onto `to` with a finger (a copy of the card must follow it). */
async function touchDrag(p, from, to) {
  const a = await (await p.$(from)).boundingBox();
  const b = await (await p.$(to)).boundingBox();
  const [x0, y0] = [a.x + a.width / 2, a.y + a.height / 2];
  const [x1, y1] = [b.x + b.width / 2, b.y + b.height / 2];
  await p.touchscreen.touchStart(x0, y0);
  for (let i = 1; i <= 8; i++) await p.touchscreen.touchMove(x0 + ((x1 - x0) * i) / 8, y0 + ((y1 - y0) * i) / 8);
  if (!(await p.$(".card.ghost"))) fail("no card follows the finger");
  await p.touchscreen.touchEnd();
}

/** The page's errors and the requests it made that failed (a 404 for an icon included). */
function watchErrors(p, errors) {
  p.on("pageerror", (e) => errors.push(String(e)));
  p.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  p.on("response", (r) => {
    if (r.status() >= 400) errors.push(`${r.status()} for ${r.url()}`);
  });
}

/** Waits for the move in flight to be answered and the page redrawn; fails on a refusal. */
async function settled(p, seqBefore) {
  await p.waitForFunction((before) => {
    const app = document.querySelector("#app");
    return app?.dataset.busy === "" && (app.dataset.seq !== before || !!document.querySelector("#message.refusal"));
  }, POLL, seqBefore);
  const message = await p.$eval("#message.refusal", (e) => e.textContent).catch(() => "");
  if (message) fail(`a move was refused: ${message}`);
}

const browser = await launch();
try {
  // 1. The phone.
  const page = await browser.newPage();
  page.setDefaultTimeout(60_000);
  await page.setViewport({ width: 390, height: 844, hasTouch: true, isMobile: true });
  const errors = [];
  watchErrors(page, errors);
  /** From the lobby, a game as "ada" against the `random` house bot. */
  const newGame = async () => {
    await page.goto(url, { waitUntil: "networkidle2" });
    await page.waitForSelector("#play-bot");
    await page.$eval("#name", (e) => { e.value = ""; });
    await page.type("#name", "ada");
    await page.select("#bot", "random");
    await page.tap("#play-bot");
    await page.waitForFunction(() => location.hash.startsWith("#/play/"), POLL);
    await page.waitForSelector("#status");
  };
  await newGame();
  const seat = await page.$eval(".seat.mine", (e) => e.textContent);
  if (!seat.includes("ada (you)")) fail(`the player's own seat is marked as ${seat}`);

  const status = () => page.$eval("#status", (e) => e.textContent ?? "");
  const seq = () => page.$eval("#app", (e) => e.dataset.seq);
  const done = { refused: false, dragged: false, retried: false, sorted: false, held: false };
  let afterHold = 0;
  let phoneGames = 1;
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (Date.now() > deadline) fail(`5 minutes and not done: ${JSON.stringify(done)}; status: ${await status()}`);
    if (await page.$("#continue")) {
      // The hand's result, in place of the table, on the screen, until the player continues.
      if (await page.$("section.table, section.hand")) fail("the table is shown with the hand's result");
      if (!(await onScreen(page, "#continue"))) fail("the Continue button is off the screen");
      const top = await page.$eval("#hand-over", (e) => e.getBoundingClientRect().top);
      if (top < 0 || top > 844 / 2) fail(`the hand's result starts at ${top} px`);
      const title = await page.$eval("#last-hand h3", (e) => e.textContent);
      await shot(page, "hand-over-phone");
      await new Promise((r) => setTimeout(r, 2000));
      if (!(await page.$("#continue")) || (await page.$("section.table"))) fail("the hand's result went by without the player");
      if ((await page.$eval("#last-hand h3", (e) => e.textContent)) !== title) fail("the result shown changed");
      await page.tap("#continue").catch(() => page.tap("#continue")); // once more if redrawn under the finger
      await page.waitForSelector("section.table", { timeout: 5000 });
      if (await page.$("#hand-over")) fail("the result stayed after Continue");
      done.held = true;
      console.log(`held the result until continued: ${title}`);
      continue;
    }
    const now = await status();
    if (now.startsWith("Game over")) {
      // A game may end before the checks are done (a hand's result is held only before the
      // game's last hand): another game, up to three, the hold and the play after it again.
      if (++phoneGames > 3) fail(`three games ended before the checks: ${JSON.stringify(done)}; ${now}`);
      console.log(`the phone's game ended before the checks (${now}): another`);
      done.held = false;
      afterHold = 0;
      await newGame();
      continue;
    }
    if (!now.startsWith("Your turn")) {
      await page.waitForFunction((before) => document.querySelector("#status")?.textContent !== before || !!document.querySelector("#continue"), POLL, now);
      continue;
    }
    if (done.held && Object.values(done).every(Boolean) && afterHold >= 2) break;
    const before = await seq();
    if (await page.$("#pass")) {
      await page.tap("#pass");
      await settled(page, before);
      continue;
    }
    if (await page.$("#draw-stock")) {
      if (!done.refused && (await page.$("#draw-pile"))) {
        // Take the pile's card (a tap on it), then drag it onto the pile, and press it: each
        // refused, and the page says why, where the player looks.
        await page.tap("#pile");
        await settled(page, before);
        const taken = await page.$eval("section.hand .card[aria-label*='taken from the pile']", (e) => e.id);
        const refused = async (how) => {
          await page.waitForSelector("#message.refusal");
          const why = await page.$eval("#message.refusal", (e) => e.textContent);
          if (!why.includes("was just taken from the pile: discard another card")) fail(`refusal (${how}): ${why}`);
          if (!(await onScreen(page, "#message"))) fail(`the refusal (${how}) is off the screen`);
          if (!(await page.$(`#${taken}`)) || (await page.$(`#${taken}[aria-pressed=true]`))) fail(`the refused card (${how}) left the hand or was selected`);
          return why;
        };
        await touchDrag(page, `#${taken}`, "#pile");
        await refused("dragged");
        // Another card pressed: the message goes; the refused card pressed: it comes again.
        await page.tap(`#${await pickDiscard(page)}`);
        await page.waitForSelector("#message.refusal", { hidden: true });
        await page.tap(`#${taken}`);
        const why = await refused("pressed");
        await shot(page, "refused-phone");
        done.refused = true;
        console.log(`refused on the screen, dragged and pressed: ${why}`);
        continue;
      }
      await page.tap("#draw-stock");
      await settled(page, before);
      continue;
    }
    const card = await pickDiscard(page);
    if (!done.sorted) {
      // The order: melds first (each a group), by suit, by rank, and back; the same cards.
      const cards = () => page.$$eval("section.hand .cards .card", (es) => es.map((e) => e.dataset.card));
      const orders = [];
      for (let i = 0; i < 3; i++) {
        orders.push([await page.$eval("#sort", (e) => e.dataset.sort), await cards()]);
        await page.tap("#sort");
      }
      if (orders.map((o) => o[0]).join(" ") !== "melds suit rank") fail(`orders ${orders.map((o) => o[0])}`);
      const rank = (c) => "A23456789TJQK".indexOf(c[0]);
      const byRank = orders[2][1];
      if (byRank.some((c, i) => i > 0 && rank(byRank[i - 1]) > rank(c))) fail(`not by rank: ${byRank}`);
      if ([...orders[1][1]].sort().join() !== [...byRank].sort().join()) fail("the order changed the cards");
      const best = await page.$eval(".best", (e) => e.textContent);
      const groups = await page.$$eval(".meld-group", (es) => es.length);
      if (best.includes("melds ") !== groups > 0) fail(`${groups} meld groups for "${best}"`);
      if ((await page.$eval("#sort", (e) => e.dataset.sort)) !== "melds") fail("the order did not come back to melds first");
      done.sorted = true;
      console.log(`ordered the hand three ways; ${groups} meld groups`);
    }
    await page.tap(`#${card}`);
    await page.waitForSelector("#discard, #knock");
    if (await page.$("#knock")) {
      await page.tap("#knock");
      await page.waitForSelector("#confirm-yes");
      await page.tap("#confirm-yes");
      await settled(page, before);
      continue;
    }
    if (!done.dragged) {
      // A touch drag onto the pile.
      await touchDrag(page, `#${card}`, "#pile");
      await page.waitForFunction((c) => !document.getElementById(c), POLL, card);
      await settled(page, before);
      done.dragged = true;
      console.log(`discarded ${card.slice(5)} by dragging it onto the pile with a finger`);
    } else if (!done.retried) {
      // The discard is answered UNAVAILABLE once: sent again, the same request, played once.
      const sent = [];
      await page.setRequestInterception(true);
      const handler = (req) => {
        if (!req.url().endsWith("/gin.v1.GameService/Discard")) return void req.continue();
        sent.push(req.postData() ?? "");
        if (sent.length === 1) {
          return void req.respond({ status: 200, headers: { "content-type": "application/grpc-web+proto", "grpc-status": "14", "grpc-message": "the game moved to another server" }, body: "" });
        }
        req.continue();
      };
      page.on("request", handler);
      await page.tap("#discard");
      await page.waitForFunction((c) => !document.getElementById(c), POLL, card);
      await settled(page, before);
      page.off("request", handler);
      await page.setRequestInterception(false);
      if (sent.length !== 2 || sent[0] !== sent[1]) fail(`${sent.length} discards sent, the same: ${sent[0] === sent[1]}`);
      done.retried = true;
      console.log("a discard answered UNAVAILABLE was sent again and played");
    } else {
      await page.tap("#discard");
      await settled(page, before);
      if (done.held) afterHold += 1;
    }
  }
  await shot(page, "game-phone");
  await page.tap("#resign");
  await page.waitForSelector("#confirm-yes");
  await page.tap("#confirm-yes");
  await page.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("Game over"), POLL);
  console.log(`phone: ${await status()}`);
  if (errors.length) fail(`errors in the page: ${errors.join("; ")}`);

  // 2. The desktop, gin for 3 to 6 at one table, to its end. Its result is held after a hand
  // unless the game's hands ended between two of the page's updates (the house bots may go
  // out before the player's first turn of the last hand): then the next spare game is played.
  const desk = await browser.newPage();
  desk.setDefaultTimeout(60_000);
  await desk.setViewport({ width: 1280, height: 800 });
  watchErrors(desk, errors);
  const dstatus = () => desk.$eval("#status", (e) => e.textContent ?? "");
  let holds = 0;
  let keyed = false;
  for (const [g, [gin7, gin7Seat, gin7Token]] of games.entries()) {
    if (g > 0) {
      if (holds > 0) break;
      console.log(`no result held in gin-7 game ${g} (its last hand ended before the page's next update): the next one`);
    }
    await desk.goto(url, { waitUntil: "load" });
    await desk.evaluate((id, seat, token) => {
      const all = JSON.parse(localStorage.getItem("gin.seats") ?? "{}");
      all[id] = { seat, token };
      localStorage.setItem("gin.seats", JSON.stringify(all));
    }, gin7, Number(gin7Seat), gin7Token);
    // The first game's stream first answered UNAVAILABLE (as by a server whose game moved):
    // the page opens it again, and plays on.
    const watches = [];
    const unavailable = (req) => {
      if (!req.url().endsWith("/gin.v1.GameService/WatchGame")) return void req.continue();
      watches.push(req.postData() ?? "");
      if (watches.length === 1) {
        return void req.respond({ status: 200, headers: { "content-type": "application/grpc-web+proto", "grpc-status": "14", "grpc-message": "the game moved to another server" }, body: "" });
      }
      req.continue();
    };
    if (g === 0) {
      await desk.setRequestInterception(true);
      desk.on("request", unavailable);
    }
    await desk.goto(`${url}#/play/${gin7}`, { waitUntil: "load" });
    await desk.waitForFunction(() => !!document.querySelector("section.hand .card") && !document.querySelector(".connection"), POLL);
    if (g === 0) {
      desk.off("request", unavailable);
      await desk.setRequestInterception(false);
      if (watches.length < 2) fail(`the stream was opened ${watches.length} times`);
      console.log(`the game's stream, answered UNAVAILABLE, was opened again (${watches.length} times in all)`);
    }
    await desk.waitForSelector("#status");
    const deskDeadline = Date.now() + 240_000;
    for (;;) {
      if (Date.now() > deskDeadline) fail(`the gin-7 game did not end in 4 minutes: ${await dstatus()}`);
      if (await desk.$("#continue")) {
        if (!(await onScreen(desk, "#continue"))) fail("desktop: the Continue button is off the screen");
        if (holds === 0) await shot(desk, "hand-over-desktop");
        // (Redrawn under the click: seen again above.)
        if (await desk.click("#continue").then(() => true, () => false)) holds += 1;
        continue;
      }
      const now = await dstatus();
      if (now.startsWith("Game over")) break;
      if (!now.startsWith("Your turn")) {
        await desk.waitForFunction((b) => document.querySelector("#status")?.textContent !== b || !!document.querySelector("#continue"), POLL, now);
        continue;
      }
      if (!keyed) {
        // The terminal's `o`: the hand's order from the keyboard, round to where it was.
        keyed = true;
        const orders = [];
        for (let i = 0; i < 3; i++) {
          await desk.keyboard.press("o");
          orders.push(await desk.$eval("#sort", (e) => e.dataset.sort));
        }
        if (orders.join(" ") !== "suit rank melds") fail(`o ordered the hand ${orders.join(", ")}`);
      }
      const before = await desk.$eval("#app", (e) => e.dataset.seq);
      if (await desk.$("#draw-stock")) {
        await desk.click("#draw-stock");
      } else {
        await desk.waitForSelector("[data-suggested=true]");
        await desk.click("[data-suggested=true]");
        await desk.waitForSelector("#discard, #knock");
        if (await desk.$("#knock")) {
          await desk.click("#knock");
          await desk.waitForSelector("#confirm-yes");
          await desk.click("#confirm-yes");
        } else {
          await desk.click("#discard");
        }
      }
      await settled(desk, before);
    }
  }
  if (holds === 0) fail(`no hand's result was held at the desktop in ${games.length} games`);
  const final = await dstatus();
  await desk.waitForSelector("#places");
  await shot(desk, "gin7-over-desktop");
  if (!final.includes("(net: points won minus penalties; the highest wins)")) fail(`gin-7 result: ${final}`);
  if (/-\s*-|\d+ - /.test(final)) fail(`a minus that reads as a dash: ${final}`);
  // Every player named with its total, best first.
  const named = [...final.matchAll(/([^,;:]+?) (−?\d+)(?=,| \(net)/g)].map((m) => [m[1].trim(), Number(m[2].replace("−", "-"))]);
  if (named.length !== 3) fail(`3 players in "${final}"; read ${JSON.stringify(named)}`);
  if (named.some(([, v], i) => i > 0 && named[i - 1][1] < v)) fail(`not best first: ${final}`);
  const rows = await desk.$$eval("table[aria-label='score sheet'] tfoot tr", (trs) => trs.map((tr) => tr.firstElementChild.textContent));
  if (rows.join("|") !== "points won|penalties|final net|place") fail(`score sheet rows: ${rows.join("|")}`);
  const places = await desk.$$eval("#places td", (tds) => tds.map((td) => td.textContent));
  if (!places.some((p) => p.startsWith("1st"))) fail(`places ${places}`);
  console.log(`gin-7 at a desktop: ${holds} results held; ${final}`);
  if (errors.length) fail(`errors in the page: ${errors.join("; ")}`);
  console.log("person test passed");
} catch (e) {
  // What the pages showed when it failed.
  for (const [i, p] of (await browser.pages()).entries()) {
    await p.screenshot({ path: `${shots}/person-failed-${i}.png`, fullPage: true }).catch(() => {});
    console.log(`page ${i}: ${await p.evaluate(() => `${document.querySelector("#status")?.textContent} | ${document.querySelector("#message")?.textContent ?? ""}`).catch(() => "?")}`);
  }
  throw e;
} finally {
  await browser.close();
}
