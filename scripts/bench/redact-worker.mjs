// Ours in the redaction bench: a text artifact as `aorta-probe bundle` scrubs it — read in 1 MiB chunks, decoded
// 32 KiB at a time with U+FFFD for bad bytes, cut into the original's windows (WindowSplitter), scrubbed
// (TextScrubber.scrubWindow),
// written as UTF-8 — timed from the first read to the last write.
//   node scripts/bench/redact-worker.mjs LOG OUT SECRETS(0|1)  -> prints {"ms", "paths", "ips", "secrets", "maxRssKiB"}
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

// Not child.mjs: it resolves the python3 interpreter at import, which this process does not need.
const { TextScrubber, WindowSplitter } = await import(new URL('../../dist/src/index.js', import.meta.url).href);
const [log, outPath, secrets] = process.argv.slice(2);
const t0 = performance.now();
const s = new TextScrubber({ scrubPaths: true, scrubIpAddresses: true, scrubSecrets: secrets === '1' });
const split = new WindowSplitter();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const inFd = openSync(log, 'r');
const outFd = openSync(outPath, 'w');
const emit = (windows) => {
  for (const w of windows) s.scrubWindow(w, (p) => writeSync(outFd, p));
};
const buf = Buffer.allocUnsafe(1 << 20);
for (let n = readSync(inFd, buf); n > 0; n = readSync(inFd, buf))
  for (let at = 0; at < n; at += 32 * 1024)
    emit(split.push(decoder.decode(buf.subarray(at, Math.min(n, at + 32 * 1024)), { stream: true })));
emit(split.push(decoder.decode()));
emit(split.end());
closeSync(inFd);
closeSync(outFd);
const c = s.counts;
process.stdout.write(
  JSON.stringify({
    ms: performance.now() - t0,
    paths: c.pathsRewritten,
    ips: c.ipsRewritten,
    secrets: c.secretsRedacted,
    maxRssKiB: process.resourceUsage().maxRSS,
  }),
);
