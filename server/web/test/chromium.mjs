// What the browser tests share: Debian's Chromium launched headless through puppeteer-core
// (which downloads no browser of its own), and their small helpers.
import puppeteer from "puppeteer-core";

/** Waits poll on a timer: a tab in the background runs no animation frames. */
export const POLL = { polling: 100 };

/** Fails the test with `what`. */
export function fail(what) {
  throw new Error(what);
}

/** The browser (`CHROMIUM`, default /usr/bin/chromium). */
export function launch() {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    // Several pages play and watch at once: none may be throttled as a background tab.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-timer-throttling",
      "--disable-backgrounding-occluded-windows", "--disable-renderer-backgrounding"],
    protocolTimeout: 60_000,
  });
}

/** A screenshot of `p` into `dir` (brought to the front: a background tab is not painted). */
export async function shot(p, dir, name) {
  await p.bringToFront();
  await p.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

/**
 * Plays the game open in `page` to its end by clicks as its seat (passing, drawing from the
 * stock, discarding the suggested card or knocking with it, continuing after each hand), and
 * returns how many moves it made and the final status. Fails on a refused move, or after
 * `ms` without the end.
 */
export async function playToEnd(page, ms = 300_000) {
  const status = () => page.$eval("#status", (e) => e.textContent ?? "");
  let moves = 0;
  const deadline = Date.now() + ms;
  for (;;) {
    if (Date.now() > deadline) fail(`the game did not end in ${ms / 1000} s (${moves} moves; status: ${await status()})`);
    if (await page.$("#continue")) {
      await page.click("#continue").catch(() => {});
      continue;
    }
    const now = await status();
    if (now.startsWith("Game over")) break;
    if (!now.startsWith("Your turn")) {
      await page.waitForFunction((before) => document.querySelector("#status")?.textContent !== before || !!document.querySelector("#continue"), POLL, now);
      continue;
    }
    const seqBefore = await page.$eval("#app", (e) => e.dataset.seq);
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
      if (await page.$("#knock")) {
        await page.click("#knock");
        await page.waitForSelector("#confirm-yes");
        await page.click("#confirm-yes");
      } else {
        await page.click("#discard");
      }
    }
    moves += 1;
    await page.waitForFunction((before) => {
      const app = document.querySelector("#app");
      return app?.dataset.busy === "" && (app.dataset.seq !== before || !!document.querySelector("#message"));
    }, POLL, seqBefore);
    const message = await page.$eval("#message", (e) => e.textContent).catch(() => "");
    if (message) fail(`a move was refused: ${message}`);
  }
  return { moves, status: await status() };
}
