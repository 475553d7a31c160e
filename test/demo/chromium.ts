/**
 * Launches Debian's Chromium for the browser test through playwright-core (which never downloads
 * a browser). `chromiumMissingReason` says what to install when it is missing (the browser tests then fail with it, never skip).
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.STREAMDOCTOR_CHROMIUM ?? '/usr/bin/chromium';

/** Null when Chromium is there; otherwise why the browser test cannot run. */
export function chromiumMissingReason(): string | null {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return null;
  } catch {
    return `Chromium is not installed at ${CHROMIUM_PATH} (run .ci/browser, or apt-get install -y chromium)`;
  }
}

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile, nothing reaching the network on its own. */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'streamdoctor-chromium-'));
  // A fresh --user-data-dir per run; playwright takes it as the persistent context's directory.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    viewport: { width: 1280, height: 900 },
    headless: true,
    timeout: 30_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
