// Drives the page of `lancet serve --ui` in headless Chromium (browser_test.sh sets it
// up): every step waits with a timeout and any failure exits 1 with what was expected.
//
//   PLAYWRIGHT=.../node_modules/playwright-core UI_TOKEN=T \
//     node browser_check.cjs URL CHROMIUM SCREENSHOT GUARDED_URL
//
// GUARDED_URL is a server started with --token-file holding UI_TOKEN.
'use strict';

const { chromium } = require(process.env.PLAYWRIGHT);

const [url, executablePath, screenshot, guardedUrl] = process.argv.slice(2);
const STEP_MS = 30000;

function check(ok, what) {
  if (!ok) throw new Error('expected ' + what);
}

async function main() {
  // Chromium can take a while to start while other tests load the machine.
  const browser = await chromium.launch({ executablePath, headless: true, timeout: 2 * STEP_MS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(STEP_MS);
    // A script error, a refused resource (the page's CSP) or a failed request other than
    // the bad filter's fails the test; failed requests are checked from the responses.
    const problems = [];
    page.on('pageerror', (e) => problems.push('page error: ' + e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push('console: ' + m.text());
    });
    const frames = [];
    const failed = [];
    page.on('response', (r) => {
      if (r.url().includes('/ui/api/frame?')) frames.push({ status: r.status(), type: r.headers()['content-type'] });
      if (r.status() >= 400) failed.push(r.status() + ' ' + new URL(r.url()).pathname + new URL(r.url()).search);
    });

    await page.goto(url);  // "/" redirects to /ui/
    check(new URL(page.url()).pathname === '/ui/', 'the page at /ui/, got ' + page.url());
    await page.locator('#tables button[data-table="videos"]').click();
    await page.locator('#match-count[data-total="3"]').waitFor();
    check((await page.locator('#rows tbody tr').count()) === 3, '3 video rows before filtering');
    const schema = await page.locator('#schema').innerText();
    check(schema.includes('video') && schema.includes('video_ffmpeg'), 'the schema to show the video column');

    await page.locator('#filter').fill("path = 'bravo.mp4'");
    await page.locator('#filter').press('Enter');
    await page.locator('#match-count[data-total="1"]').waitFor();
    const rows = page.locator('#rows tbody tr');
    check((await rows.count()) === 1, '1 row after the filter');
    check((await rows.first().innerText()).includes('bravo.mp4'), 'the filtered row to be bravo.mp4');

    // A filter that does not parse is reported, not a crash or an empty table.
    await page.locator('#filter').fill('path = = 1');
    await page.locator('#filter').press('Enter');
    await page.locator('#rows-error:not([hidden])').waitFor();
    await page.locator('#filter').fill("path = 'bravo.mp4'");
    await page.locator('#filter').press('Enter');
    await page.locator('#rows-error').waitFor({ state: 'hidden' });
    await page.locator('#match-count[data-total="1"]').waitFor();

    await rows.first().click();
    await page.locator('.video-info').waitFor();
    const strip = page.locator('.frame-strip img');
    await page.waitForFunction(() => {
      const imgs = [...document.querySelectorAll('.frame-strip img')];
      return imgs.length === 6 && imgs.every((i) => i.complete && i.naturalWidth > 0);
    }, null, { timeout: STEP_MS });
    const widths = await strip.evaluateAll((imgs) => imgs.map((i) => i.naturalWidth));
    check(widths.every((w) => w === 160), 'frames 160 pixels wide, got ' + widths.join(','));
    check(frames.length === 6, '6 frame responses, got ' + frames.length);
    check(frames.every((f) => f.status === 200 && f.type === 'image/png'),
      'every frame answered 200 image/png, got ' + JSON.stringify(frames));
    const info = await page.locator('.video-info').innerText();
    check(/^2\.\d\d s, 30\.00 fps, 192×108/.test(info), 'bravo.mp4 as 2 s, 30 fps, 192x108: ' + info);
    await page.screenshot({ path: screenshot, fullPage: true });

    await page.locator('#tables button[data-table="images"]').click();
    await page.locator('#match-count[data-total="2"]').waitFor();
    await page.locator('#rows tbody tr').nth(1).click();
    await page.waitForFunction(() => {
      const i = document.querySelector('.blob-image');
      return i && i.complete && i.naturalWidth > 0;
    }, null, { timeout: STEP_MS });
    const size = await page.locator('.blob-image').evaluate((i) => [i.naturalWidth, i.naturalHeight]);
    check(size[0] === 64 && size[1] === 48, 'red.png (row 1) as 64x48, got ' + size);

    check(problems.length === 0, 'no page errors: ' + problems.join('; '));
    check(failed.length === 1 && failed[0].startsWith('400 /ui/api/rows?'),
      'only the bad filter to fail, got ' + failed.join('; '));

    // With a token: nothing is listed until it is given, then the tables are.
    const guarded = await browser.newPage();
    guarded.setDefaultTimeout(STEP_MS);
    await guarded.goto(guardedUrl);
    await guarded.locator('#token-form:not([hidden])').waitFor();
    check((await guarded.locator('#tables button').count()) === 0, 'no tables listed without the token');
    await guarded.locator('#token').fill(process.env.UI_TOKEN);
    await guarded.locator('#token').press('Enter');
    await guarded.locator('#tables button[data-table="videos"]').waitFor();
    await guarded.locator('#tables button[data-table="images"]').click();
    await guarded.locator('#match-count[data-total="2"]').waitFor();
    console.log(`ui_browser: ok (${frames.length} frames as PNG, filter 3 -> 1 rows, image ${size[0]}x${size[1]})`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error('ui_browser: ' + (e && e.stack ? e.stack : e));
  process.exit(1);
});
