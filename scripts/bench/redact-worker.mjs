// Ours in the redaction bench: a text artifact as `aorta-probe bundle` scrubs it — the same `scrubbedText`
// (src/bundle/text-stream.ts: decoded 32 KiB at a time with U+FFFD for bad bytes, ASCII pieces copied, the
// original's windows, `TextScrubber.scrubWindow`) over the file read in 4 MiB chunks, each piece written as UTF-8
// as it comes — timed from the first read to the last write.
//   node scripts/bench/redact-worker.mjs LOG OUT SECRETS(0|1)  -> prints {"ms", "paths", "ips", "secrets", "maxRssKiB"}
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';

// Not child.mjs: it resolves the python3 interpreter at import, which this process does not need.
const dist = new URL('../../dist/src/', import.meta.url).href;
const { TextScrubber } = await import(`${dist}index.js`);
const { scrubbedText } = await import(`${dist}bundle/text-stream.js`);
const [log, outPath, secrets] = process.argv.slice(2);
const t0 = performance.now();
const s = new TextScrubber({ scrubPaths: true, scrubIpAddresses: true, scrubSecrets: secrets === '1' });
const inFd = openSync(log, 'r');
const outFd = openSync(outPath, 'w');
function* chunks() {
  const buf = Buffer.allocUnsafe(4 << 20);
  for (let n = readSync(inFd, buf); n > 0; n = readSync(inFd, buf)) yield buf.subarray(0, n);
}
for (const piece of scrubbedText(chunks(), s, fstatSync(inFd).size)) writeSync(outFd, piece);
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
