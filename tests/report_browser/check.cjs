// Opens a tapflow report.html in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core; no browser is downloaded) and prints what a person and a machine would see,
// as JSON, for tests/report/html_browser.rs:
// - console errors and page errors, every network request that is not a local file;
// - the flows and steps in the DOM (names, statuses), the failure details;
// - keyboard: what the first Tab focuses, and that Tab reaches every flow's <summary>;
// - accessibility basics: lang, headings, alt text, labelled SVGs;
// - a phone viewport (390x844): horizontal overflow;
// - screenshots (desktop, phone) written to OUT_DIR.
// Usage: NODE_PATH=.test-deps/browser/node_modules node check.cjs REPORT_HTML OUT_DIR
// CommonJS, so that NODE_PATH (.test-deps/browser/node_modules) resolves playwright-core.
const { chromium } = require('playwright-core');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

(async () => {

const [html, outDir] = process.argv.slice(2);
const userDataDir = mkdtempSync(join(tmpdir(), 'tapflow-chromium-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
});
const out = { console_errors: [], page_errors: [], requests: [], network: [] };
const page = context.pages()[0] ?? await context.newPage();
page.on('console', (m) => { if (m.type() === 'error') out.console_errors.push(m.text()); });
page.on('pageerror', (e) => out.page_errors.push(String(e)));
page.on('request', (r) => {
  out.requests.push(r.url());
  if (!r.url().startsWith('file:')) out.network.push(r.url());
});
page.on('requestfailed', (r) => out.console_errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
const url = pathToFileURL(html).href;
await page.goto(url, { waitUntil: 'load' });

out.dom = await page.evaluate(() => {
  const flows = [...document.querySelectorAll('section.flow')].map((s) => ({
    name: s.querySelector('h3')?.textContent.trim(),
    status: [...s.classList].find((c) => c !== 'flow'),
    steps: [...s.querySelectorAll('ol.steps > li')].map((li) => ({
      title: li.querySelector('.title')?.textContent.trim(),
      status: li.querySelector('.badge')?.textContent.trim(),
    })),
    details: s.querySelectorAll('.detail').length,
    screenshots: s.querySelectorAll('.detail svg image, .detail img').length,
    targets: s.querySelectorAll('.detail svg rect.target').length,
    source_marked: s.querySelectorAll('pre.source .marked').length,
  }));
  const imgsWithoutAlt = [...document.querySelectorAll('img')].filter((i) => !i.hasAttribute('alt')).length;
  const svgsUnlabelled = [...document.querySelectorAll('svg')].filter((s) => !s.getAttribute('aria-labelledby') && !s.getAttribute('aria-label')).length;
  const brokenImages = [...document.querySelectorAll('img')].filter((i) => i.complete && i.naturalWidth === 0).map((i) => i.src);
  return {
    lang: document.documentElement.lang,
    title: document.title,
    h1: document.querySelector('h1')?.textContent.trim(),
    headings: [...document.querySelectorAll('h1,h2,h3')].length,
    landmarks: { main: !!document.querySelector('main'), nav: !!document.querySelector('nav'), header: !!document.querySelector('header') },
    flows, imgsWithoutAlt, svgsUnlabelled, brokenImages,
    summaries: document.querySelectorAll('summary').length,
    scripts: document.querySelectorAll('script').length,
    external: [...document.querySelectorAll('[src],[href]')].map((e) => e.getAttribute('src') || e.getAttribute('href')).filter((u) => /^(https?:)?\/\//.test(u)),
  };
});

// Keyboard: the first Tab lands on the skip link; tabbing reaches every flow's summary.
await page.keyboard.press('Tab');
out.first_focus = await page.evaluate(() => ({ tag: document.activeElement.tagName, text: document.activeElement.textContent.trim() }));
let reachedSummaries = 0;
for (let i = 0; i < 400; i++) {
  await page.keyboard.press('Tab');
  const tag = await page.evaluate(() => document.activeElement.tagName);
  if (tag === 'SUMMARY') reachedSummaries++;
  if (tag === 'BODY') break;
}
out.summaries_reached_by_tab = reachedSummaries;
// Enter on a focused summary toggles its flow's steps (native <details>).
await page.focus('section.flow summary');
const before = await page.evaluate(() => document.querySelector('section.flow details').open);
await page.keyboard.press('Enter');
const after = await page.evaluate(() => document.querySelector('section.flow details').open);
out.enter_toggles = before !== after;
await page.keyboard.press('Enter');

await page.screenshot({ path: join(outDir, 'desktop.png'), fullPage: false });

// A phone.
await page.setViewportSize({ width: 390, height: 844 });
out.phone = await page.evaluate(() => ({
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
}));
await page.screenshot({ path: join(outDir, 'phone.png'), fullPage: false });
await context.close();
console.log(JSON.stringify(out, null, 1));
})().catch((e) => { console.error(e); process.exit(1); });
