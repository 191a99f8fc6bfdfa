// Clone-only (run by `prepare`, which the published package does not carry): links this package's own `bin`
// entries into node_modules/.bin, so `npx aorta-probe …` in a clone runs the built CLI directly, exactly as in a
// project that installed the package. Without the link npx would install the clone into its cache as a
// directory dependency, which rebuilds it (minutes) on every call.
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const bins = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
const binDir = join(root, 'node_modules', '.bin');
mkdirSync(binDir, { recursive: true });
for (const [name, target] of Object.entries(bins)) {
  const link = join(binDir, name);
  rmSync(link, { force: true });
  symlinkSync(relative(binDir, join(root, target)), link);
}
