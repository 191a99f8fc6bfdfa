// Deterministic generator of synthetic distributed-training logs (what aorta-probe scans in
// practice): timestamped step lines with loss/lr/throughput, NCCL INFO chatter, dataloader and
// checkpoint lines. Seeded, so every engine and every run sees byte-identical input.
//
// "clean": nothing any benchmark pattern matches (but plenty of near-misses: "loss=", "NCCL INFO",
// "error" as an ordinary word), so every engine must read the whole log.
// "dirty": the same, with failure lines sprinkled through it (tracebacks, HIP errors, a NaN loss,
// FATAL lines), about one per 4,000 lines. Some detectors never fire (no CUDA, ROCm, watchdog or
// "exit status" lines), so the scan still has to reach the end of the log.
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

/** mulberry32: tiny, fast, good enough for test data; same sequence on every platform. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n, w) => String(n).padStart(w, '0');

function timestamp(sec) {
  const s = Math.floor(sec);
  const ms = Math.floor((sec - s) * 1000);
  return `2026-03-${pad(1 + (Math.floor(s / 86400) % 28), 2)}T${pad(Math.floor(s / 3600) % 24, 2)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}.${pad(ms, 3)}`;
}

const DIRTY = [
  (r) =>
    `worker crashed:\nTraceback (most recent call last):\n  File "train.py", line ${100 + Math.floor(r() * 900)}, in <module>\n    loss.backward()\nRuntimeError: HIP error: an illegal memory access was encountered`,
  () => 'RuntimeError: hipError_OutOfMemory: out of memory trying to allocate 2.00 GiB',
  (r) => `[rank${Math.floor(r() * 8)}] step ${Math.floor(r() * 1e5)} | loss=nan | lr=3.0e-04`,
  (r) => `FATAL: rank ${Math.floor(r() * 8)} lost heartbeat, aborting`,
  () => 'WARNING: Error detected in the optimizer state (retrying)',
];

/**
 * Waits until the file's written pages are on disk (the OS temp directory may be a disk, as it is on the bench
 * machine). Otherwise the kernel writes them back about 30 s later (vm.dirty_expire_centisecs), in the middle of
 * whatever is being timed then: some 100 MiB-1 GiB of disk writes and their kernel threads on a 2-core machine.
 * fsync of a 100 MiB log takes ~0.15 s there.
 */
export function syncToDisk(fd) {
  fsyncSync(fd);
}

/**
 * Writes about `bytes` bytes (whole lines) of log to `path`; returns the exact byte count.
 * kind: 'clean' | 'dirty' | 'redact' (the clean log plus addresses, home paths and a rare token to scrub). Every line starts with an ISO timestamp (the every-line pattern).
 */
export function writeLog(path, bytes, { kind = 'clean', seed = 42 } = {}) {
  const r = prng(seed);
  const fd = openSync(path, 'w');
  let written = 0;
  let sec = 0;
  let step = 0;
  const CHUNK = 4 << 20;
  let parts = [];
  let partBytes = 0;
  try {
    while (written + partBytes < bytes) {
      sec += r() * 0.05;
      const ts = timestamp(sec);
      const rank = Math.floor(r() * 8);
      const x = r();
      let line;
      if (kind === 'redact' && x < 0.06) {
        // What a bundle must scrub in a real training log: NCCL's interface addresses, a host path, now and then
        // a token an environment dump printed.
        line =
          x < 0.0005
            ? `${ts} DEBUG [rank${rank}] env HF_TOKEN=hf_${Math.floor(r() * 1e16)
                .toString(36)
                .padEnd(34, 'q')}`
            : x < 0.03
              ? `${ts} INFO  [rank${rank}] NCCL INFO Bootstrap : Using eth0:10.${rank}.${Math.floor(r() * 250)}.${1 + Math.floor(r() * 250)}<0>`
              : `${ts} INFO  [rank${rank}] NCCL INFO NET/IB : Using [0]mlx5_${rank}:1/IB ; OOB eth0:fe80::${Math.floor(r() * 0xffff).toString(16)}<0> from /home/user${rank}/.conda/lib`;
      } else if (kind === 'dirty' && x < 0.00025) {
        line = `${ts} ERROR [rank${rank}] ${DIRTY[Math.floor(r() * DIRTY.length)](r)}`;
      } else if (x < 0.55) {
        step++;
        line = `${ts} INFO  [rank${rank}] step ${step}/200000 | loss=${(2 + r() * 3).toFixed(4)} | lr=${(r() * 3e-4).toExponential(2)} | grad_norm=${(r() * 2).toFixed(3)} | tokens/s=${Math.floor(8e4 + r() * 4e4)} | mem=${Math.floor(20000 + r() * 40000)}MiB`;
      } else if (x < 0.75) {
        line = `${ts} INFO  [rank${rank}] NCCL INFO Channel ${pad(Math.floor(r() * 32), 2)}/32 : ${rank}[${rank}] -> ${(rank + 1) % 8}[${(rank + 1) % 8}] via P2P/IPC/read`;
      } else if (x < 0.9) {
        line = `${ts} DEBUG [rank${rank}] dataloader: prefetched batch ${Math.floor(r() * 1e6)} in ${(r() * 30).toFixed(1)} ms (queue ${Math.floor(r() * 16)}/16)`;
      } else if (x < 0.97) {
        line = `${ts} INFO  [rank${rank}] eval step ${step} | val_loss=${(2 + r() * 2).toFixed(4)} | ppl=${(7 + r() * 20).toFixed(2)} | error rate ${(r() * 0.1).toFixed(4)}`;
      } else {
        line = `${ts} INFO  [rank${rank}] checkpoint saved to /ckpt/run-17/step_${pad(step, 7)}.pt (${(1 + r() * 9).toFixed(2)} GiB, ${(r() * 40).toFixed(1)} s)`;
      }
      line += '\n';
      parts.push(line);
      partBytes += line.length; // ASCII only: UTF-16 length is the byte length
      if (partBytes >= CHUNK) {
        written += writeSync(fd, parts.join(''));
        parts = [];
        partBytes = 0;
      }
    }
    if (parts.length) written += writeSync(fd, parts.join(''));
    syncToDisk(fd);
  } finally {
    closeSync(fd);
  }
  return written;
}
