// Loads each report.html given on the command line in headless Chromium (Debian's, through
// playwright-core) and fails, naming the page and the check, unless:
//   - the page logs no console message and throws no error;
//   - it makes no request but for itself (no network, no other file: it is self-contained);
//   - it has no script (it reads fully without JavaScript);
//   - every <svg> and <figure> is drawn with a non-zero width and height;
//   - nothing but a table's own box scrolls sideways (the page is no wider than the window);
//   - its screenshot is not blank (more than 1% of its pixels differ from the background).
// Usage: node check.cjs SHOTS_DIR PAGE...  (a full-page PNG of each page goes to SHOTS_DIR).
// Run by .ci/browser-check, which installs Chromium and this script's packages.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require('playwright-core');
const { PNG } = require('pngjs');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const WIDTH = 1280;

/** The share of a PNG's pixels that differ from its top-left pixel. */
function inkShare(buffer) {
  const png = PNG.sync.read(buffer);
  const { data } = png;
  const [r, g, b] = [data[0], data[1], data[2]];
  let differ = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) > 24) {
      differ += 1;
    }
  }
  return differ / (png.width * png.height);
}

/** The problems of one page, and its screenshot written to `shot`. */
async function check(browser, file, shot) {
  const problems = [];
  const url = 'file://' + path.resolve(file);
  const context = await browser.newContext({ viewport: { width: WIDTH, height: 900 } });
  const page = await context.newPage();
  page.on('console', (message) => problems.push(`console ${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await context.route('**/*', (route) => {
    const request = route.request().url();
    if (request === url) {
      return route.continue();
    }
    problems.push(`request for ${request}`);
    return route.abort();
  });
  page.on('requestfailed', (request) => {
    if (request.url() === url) {
      problems.push(`the page itself failed to load: ${request.failure().errorText}`);
    }
  });
  await page.goto(url, { waitUntil: 'load' });
  const layout = await page.evaluate(() => {
    const sized = (selector) =>
      [...document.querySelectorAll(selector)].map((element, index) => {
        const box = element.getBoundingClientRect();
        return { selector, index, width: box.width, height: box.height };
      });
    return {
      scripts: document.scripts.length,
      figures: sized('figure'),
      svgs: sized('svg'),
      pageWidth: document.documentElement.scrollWidth,
      windowWidth: window.innerWidth,
    };
  });
  if (layout.scripts > 0) {
    problems.push(`${layout.scripts} script element(s)`);
  }
  for (const box of [...layout.figures, ...layout.svgs]) {
    if (!(box.width > 0 && box.height > 0)) {
      problems.push(`${box.selector} #${box.index} is drawn ${box.width} x ${box.height}`);
    }
  }
  if (layout.pageWidth > layout.windowWidth) {
    problems.push(`the page is ${layout.pageWidth} px wide in a ${layout.windowWidth} px window`);
  }
  const png = await page.screenshot({ fullPage: true });
  fs.writeFileSync(shot, png);
  const ink = inkShare(png);
  if (ink < 0.01) {
    problems.push(`the screenshot is blank (${(ink * 100).toFixed(2)}% of its pixels drawn)`);
  }
  await context.close();
  return { problems, svgs: layout.svgs.length, ink };
}

async function main() {
  const [shots, ...pages] = process.argv.slice(2);
  if (!shots || pages.length === 0) {
    console.error('usage: node check.cjs SHOTS_DIR PAGE...');
    process.exit(2);
  }
  fs.mkdirSync(shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  let failed = 0;
  for (const file of pages) {
    const started = Date.now();
    const shot = path.join(shots, file.replace(/[\/\\]/g, '_').replace(/\.html$/, '.png'));
    let result;
    try {
      result = await check(browser, file, shot);
    } catch (error) {
      result = { problems: [`could not be checked: ${error.message}`], svgs: 0, ink: 0 };
    }
    const ms = Date.now() - started;
    if (result.problems.length > 0) {
      failed += 1;
      console.log(`FAIL ${file} (${ms} ms)`);
      for (const problem of result.problems) {
        console.log(`  ${problem}`);
      }
    } else {
      console.log(
        `ok   ${file}: ${result.svgs} charts, ${(result.ink * 100).toFixed(1)}% drawn (${ms} ms)`,
      );
    }
  }
  await browser.close();
  console.log(`${pages.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
