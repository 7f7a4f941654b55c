import { chromium } from 'playwright-core';
const [base, path, email] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 390, height: 900 } });
await page.goto(base + '/');
await page.getByLabel(/email/i).first().fill(email);
await page.getByLabel(/password/i).first().fill('Demo-1234');
await page.getByRole('button', { name: /log ?in/i }).click();
await page.waitForLoadState('networkidle');
await page.goto(base + path);
await page.waitForLoadState('networkidle');
console.log(await page.evaluate(() => {
  const out: string[] = [`doc ${document.documentElement.scrollWidth}`];
  for (const el of Array.from(document.querySelectorAll('body *'))) {
    const r = el.getBoundingClientRect();
    if (r.right > 392 && r.width > 0) {
      const p = el.parentElement?.getBoundingClientRect();
      if (getComputedStyle(el).position === "fixed" || getComputedStyle(el).position === "absolute" || getComputedStyle(el).position === "sticky") out.push(`${el.tagName}.${(el as HTMLElement).className} ${Math.round(r.left)}-${Math.round(r.right)}`);
    }
  }
  return out.slice(0, 20).join('\n');
}));
await browser.close();
