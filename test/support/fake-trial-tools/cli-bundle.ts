/**
 * Bundles the CLI and the trial library from src/ into one directory with rolldown (vite's bundler, already
 * installed), so tests can run them in a real child process without a build step. re2-wasm stays external and is
 * found through a node_modules symlink (it loads its own .wasm file from its package directory).
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';

export interface CliBundle {
  /** The CLI entry point (src/cli/bin.ts). */
  readonly main: string;
  /** The trial library (src/trial/index.ts), importable by a driver script in the same directory. */
  readonly trial: string;
}

export async function bundleCli(dir: string): Promise<CliBundle> {
  mkdirSync(dir, { recursive: true });
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'));
  await build({
    input: {
      main: resolve('src/cli/bin.ts'),
      trial: resolve('src/trial/index.ts'),
      recipe: resolve('src/recipe/index.ts'),
    },
    platform: 'node',
    external: [/^re2-wasm/],
    logLevel: 'silent',
    output: { dir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
  });
  return { main: join(dir, 'main.mjs'), trial: join(dir, 'trial.mjs') };
}
