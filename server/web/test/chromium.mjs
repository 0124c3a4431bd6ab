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
