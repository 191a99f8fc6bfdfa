/**
 * Vitest global setup: unpacks the test Chromium once, before any test file runs, so browser test files running
 * in parallel never race to unpack it. Skipped with AORTA_SKIP_BROWSER=1.
 */
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOLVED_ENV, resolveChromium } from './chromium.js';

export default async function setup(): Promise<void> {
  if (process.env.AORTA_SKIP_BROWSER === '1' || process.env.AORTA_CHROMIUM) return;
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const choice = await resolveChromium(root);
  process.env[RESOLVED_ENV] = choice.executablePath;
}
