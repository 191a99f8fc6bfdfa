// A fake training job whose progress bar is redrawn as tqdm does: "\r" before each update, no "\n" until the bar
// closes. `node tqdm-trainer.mjs STEPS INTERVAL_MS [stall]`: STEPS updates INTERVAL_MS apart, then "\n" and
// "training complete". With `stall`, the bar stops after 2 updates while a watchdog thread keeps printing a
// heartbeat line (no progress) for STEPS intervals; then it exits 0.
const [steps = '10', intervalMs = '200', mode = ''] = process.argv.slice(2);
const n = Number(steps);
const every = Number(intervalMs);
const bar = (i) => {
  const pct = Math.round((100 * i) / n);
  const filled = Math.round(pct / 10);
  return `\rEpoch 1: ${String(pct).padStart(3)}%|${'█'.repeat(filled)}${' '.repeat(10 - filled)}| ${i}/${n} [00:0${i % 10}<00:00, loss=${(2 / (i + 1)).toFixed(3)}]`;
};
let i = 0;
process.stdout.write(bar(0));
const t = setInterval(() => {
  i++;
  if (mode === 'stall' && i > 2) {
    process.stdout.write(`\n[watchdog] rank 0 alive, step ${2}\n`.slice(i === 3 ? 0 : 1));
    if (i >= n) clearInterval(t);
    return;
  }
  process.stdout.write(bar(i));
  if (i >= n) {
    clearInterval(t);
    process.stdout.write('\ntraining complete\n');
  }
}, every);
