// Look at a page as a person would: `npx tsx scripts/screenshot.ts <url> <out.png> [email password] [width]`.
// Signs in at '/' first when an email and password are given. Uses Debian's Chromium.
import { chromium } from 'playwright-core';

const [url, out, email, password, width = '1366'] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: tsx scripts/screenshot.ts <url> <out.png> [email password] [width]');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: Number(width), height: 900 } });
if (email && password) {
  await page.goto(new URL('/', url).toString());
  await page.getByLabel(/email/i).first().fill(email);
  await page.getByLabel(/password/i).first().fill(password);
  await page.getByRole('button', { name: /log ?in|sign ?in/i }).click();
  await page.waitForLoadState('networkidle');
}
await page.goto(url);
await page.waitForLoadState('networkidle');
await page.screenshot({ path: out, fullPage: true });
await browser.close();
console.log(`saved ${out}`);
