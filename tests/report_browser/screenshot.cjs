// Takes the screenshot of the HTML report shown in docs/reports.md (docs/img/report.png):
// the summary and the first failed flow, opened, in headless Chromium (Debian's).
// Usage: NODE_PATH=.test-deps/browser/node_modules node screenshot.cjs REPORT_HTML OUT_PNG
const { chromium } = require('playwright-core');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

(async () => {
  const [html, png] = process.argv.slice(2);
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'tapflow-shot-')), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 1500 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
  // Hide the passed steps of the failed flow above its failure, so the evidence is in view.
  await page.evaluate(() => {
    const failed = document.querySelector('section.flow.failed');
    document.querySelectorAll('section.flow').forEach((s) => { if (s !== failed) s.remove(); });
  });
  await page.screenshot({ path: png, fullPage: true });
  await context.close();
})().catch((e) => { console.error(e); process.exit(1); });
