// Build step: tsc writes files 0644, so mark every `bin` target of package.json executable
// (tsc keeps the `#!/usr/bin/env node` line). Fails if a bin target was not built.
import { chmodSync, readFileSync, statSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
for (const rel of bins) {
  const file = new URL(`../${rel}`, import.meta.url);
  chmodSync(file, statSync(file).mode | 0o111);
}
