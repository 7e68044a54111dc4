/**
 * Debian's headless Chromium through playwright-core (no browser download): the real-VS-Code test drives
 * code-server with it, and the notebook figure script renders plotly figures in it.
 */
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.CCKIT_CHROMIUM || '/usr/bin/chromium';

/** Headless Chromium with a fresh temporary profile (playwright makes one per launch). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // no background networking: the machine has no network, and Chromium's own connections are refused
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 60_000,
  });
}
