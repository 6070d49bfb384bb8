// `npm run icons`: renders resources/icon.svg (the app icon) to the PNGs electron-builder and the browser shell use,
// in Chromium: resources/icon.png (1024 px: macOS and Windows packages), resources/icons/<n>x<n>.png
// (Linux packages; 256 px is the Electron window icon), src/renderer/public/favicon.svg and favicon.png (32 px). Commit the results.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

const root = new URL('../', import.meta.url);
const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

const svg = await readFile(new URL('resources/icon.svg', root), 'utf8');
const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  const render = async (size: number): Promise<Buffer> => {
    await page.setViewportSize({ width: size, height: size });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(
      `<html><body style="margin:0;background:transparent"><img src="${src}" width="${size}" height="${size}" style="display:block"></body></html>`,
    );
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    return page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
  };
  await mkdir(new URL('resources/icons/', root), { recursive: true });
  for (const size of LINUX_SIZES)
    await writeFile(new URL(`resources/icons/${size}x${size}.png`, root), await render(size));
  await copyFile(new URL('resources/icons/1024x1024.png', root), new URL('resources/icon.png', root));
  await writeFile(new URL('src/renderer/public/favicon.png', root), await render(32));
  await copyFile(new URL('resources/icon.svg', root), new URL('src/renderer/public/favicon.svg', root));
} finally {
  await browser.close();
}
