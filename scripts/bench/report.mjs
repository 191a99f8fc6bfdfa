// The one table (markdown) and the chart panels, both built from results.json's shape, so the
// README table and the SVG always show the same run.
import { dur, range, si, sig, target } from './stats.mjs';

/** Chart series name of a scanning engine (same colour across panels). */
export function series(engine) {
  if (engine.startsWith('ours: aorta-probe scan')) return 'ours, whole process';
  if (engine.startsWith('rg')) return 'rg';
  if (engine.startsWith('python3')) return 'python3';
  if (engine.startsWith('re2-wasm')) return 're2-wasm naive';
  if (engine.startsWith('V8')) return 'V8 RegExp';
  return engine;
}

const MiB = 2 ** 20;
const mb = (s) => range(s, (x) => sig(x));
const capText = (capMs) => `> ${capMs / 1000} s`;

function conditionsTable(rows, lines) {
  const engines = Object.keys(rows[0].evalsPerSec);
  lines.push('### 1. Condition evaluation — evaluations per second, median (min–max)', '');
  lines.push(
    `| condition | ${engines.join(' | ')} | target ≥ 10 M/s per core (batch) | target ≥ 5× python3 (batch) | batch ÷ fastest peer (target ≥ 1.5×) | single ÷ fastest peer (target ≥ 1×) |`,
  );
  lines.push(`|---|${engines.map(() => '---:').join('|')}|---|---|---|---|`);
  // issue 20's targets: against the faster of cel-js and filtrex on each row, measured in this run
  const vsPeer = (x, peer, goal) => `${x / peer >= goal ? '✓' : '✗'} ${sig(x / peer)}×`;
  for (const r of rows) {
    const batch = r.evalsPerSec['ours batch'].median;
    const single = r.evalsPerSec['ours single'].median;
    const py = r.evalsPerSec['python3 reference'].median;
    const peer = Math.max(r.evalsPerSec['cel-js'].median, r.evalsPerSec.filtrex.median);
    lines.push(
      `| \`${r.expr}\` | ${engines.map((e) => range(r.evalsPerSec[e], si)).join(' | ')} | ${target(batch, 10e6)} | ${target(batch / py, 5)} | ${vsPeer(batch, peer, 1.5)} | ${vsPeer(single, peer, 1)} |`,
    );
  }
  lines.push('', 'Compile / validate time per expression, median (min–max):', '');
  const comp = Object.keys(rows[0].compileUs);
  lines.push(`| condition | ${comp.join(' | ')} |`, `|---|${comp.map(() => '---:').join('|')}|`);
  for (const r of rows) lines.push(`| \`${r.expr}\` | ${comp.map((e) => range(r.compileUs[e], dur)).join(' | ')} |`);
  lines.push('', 'Peer expressions (nearest equivalents, hand-written):', '');
  lines.push('| condition | cel-js | filtrex |', '|---|---|---|');
  for (const r of rows) lines.push(`| \`${r.expr}\` | \`${r.cel}\` | \`${r.filtrex}\` |`);
}

/** Whole-process targets (issue 20): ours / rg on each log, and the 1 GiB process's peak RSS. */
export const WHOLE_TARGETS = { clean: 1, dirty: 1, big: 2, bigRssMiB: 80 };

const sizeOf = (bytes) =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : `${(bytes / MiB).toFixed(0)} MiB`;
const firedText = (f) => (Array.isArray(f) ? (f.length ? f.join(', ') : '—') : String(f));

function wholeProcessTable(rows, lines) {
  lines.push(
    '',
    '### 2. Log scanning, whole process (headline) — `aorta-probe scan` spawned cold, as a CLI user runs it, next to ripgrep with the same 10 patterns; MB/s (10⁶ bytes/s) from spawn to exit, median (min–max); peak RSS of the process',
    '',
  );
  lines.push(
    '| log | command | MB/s | time per run | peak RSS | fired | ours / rg | target |',
    '|---|---|---:|---:|---:|---|---:|---|',
  );
  const rg = Object.fromEntries(
    rows.filter((r) => r.engine.startsWith('rg ') && r.MBps).map((r) => [r.log, r.MBps.median]),
  );
  for (const r of rows) {
    const name = r.engine.startsWith('ours')
      ? 'ours: `aorta-probe scan` (see below)'
      : r.engine.startsWith('rg')
        ? `${r.engine.replace(' (whole process)', '')}: \`rg -c\` (see below)`
        : r.engine;
    if (r.error) {
      lines.push(`| ${r.log} (${sizeOf(r.bytes)}) | ${name} | ${r.error.replace(/\|/g, '\\|')} | | | | | |`);
      continue;
    }
    let ratio = '';
    let t = '';
    if (r.engine.startsWith('ours')) {
      const x = r.MBps.median / rg[r.log];
      ratio = Number.isFinite(x) ? `${sig(x)}×` : 'rg unavailable';
      t = `≥ ${WHOLE_TARGETS[r.log]}× rg: ${target(x, WHOLE_TARGETS[r.log])}`;
      if (r.log === 'big')
        t += `; peak RSS ≤ ${WHOLE_TARGETS.bigRssMiB} MiB: ${target(r.maxRssMiB, WHOLE_TARGETS.bigRssMiB, true)}`;
    }
    lines.push(
      `| ${r.log} (${sizeOf(r.bytes)}) | ${name} | ${mb(r.MBps)} | ${range(r.timeMs, (x) => dur(x * 1000))} | ${sig(r.maxRssMiB)} MiB | ${firedText(r.fired)} | ${ratio} | ${t} |`,
    );
  }
  const generic = (cmd) =>
    cmd.replace(/\S*aorta-bench-\w+-\d+\.log/g, 'LOG').replace(/\S*aorta-bench-recipe-\d+\.yaml/g, 'RECIPE');
  const cmds = [...new Map(rows.filter((r) => r.command).map((r) => [r.engine, generic(r.command)]))];
  lines.push(
    '',
    "Commands (LOG is the row's log; RECIPE is the warm rows' 3 custom patterns as a `custom_patterns:` file):",
    '',
  );
  for (const [engine, cmd] of cmds) lines.push(`- ${engine}: \`${cmd}\``);
}

function scanningTable(allRows, lines) {
  const whole = allRows.filter((r) => r.kind === 'whole');
  const rows = allRows.filter((r) => r.kind !== 'whole');
  if (whole.length) wholeProcessTable(whole, lines);
  lines.push(
    '',
    "### 2b. Log scanning, warm (in-process, after one untimed pass) — MB/s (10⁶ bytes/s, end to end from a page-cached file), median (min–max); peak RSS of the engine's process",
    '',
  );
  lines.push('| log | engine | MB/s | time per pass | peak RSS | fired | target |', '|---|---|---:|---:|---:|---|---|');
  const py = Object.fromEntries(
    rows.filter((r) => r.engine.startsWith('python3 re (') && r.MBps).map((r) => [r.log, r.MBps.median]),
  );
  for (const r of rows) {
    if (r.error) {
      lines.push(`| ${r.log} | ${r.engine} | failed: ${r.error.replace(/\|/g, '\\|')} | | | | |`);
      continue;
    }
    let t = '';
    if (r.engine === 'ours' && r.log === 'clean')
      t = `≥ 1 GB/s: ${target(r.MBps.median, 1000)}; ≥ 30× python3 re: ${target(r.MBps.median / py.clean, 30)} (${sig(r.MBps.median / py.clean)}×)`;
    else if (r.engine === 'ours' && r.log.startsWith('every line')) t = `≥ 150 MB/s: ${target(r.MBps.median, 150)}`;
    lines.push(
      `| ${r.log} (${sizeOf(r.bytes)}) | ${r.engine} (warm) | ${mb(r.MBps)} | ${range(r.timeMs, (x) => dur(x * 1000))} | ${sig(r.maxRssMiB)} MiB | ${firedText(r.fired)} | ${t} |`,
    );
  }
}

function coldTable(cold, lines) {
  lines.push('', '### 3. Cold start — whole process, wall time, median (min–max); commands spawned round-robin', '');
  lines.push('| task | command | time | vs `node -e 0` | target |', '|---|---|---:|---:|---|');
  for (const r of cold.rows) {
    const vs = r.vsNode === undefined ? '' : `${sig(r.vsNode)}×`;
    const t = r.target === undefined ? '' : `≤ ${r.target}× node: ${target(r.vsNode, r.target, true)}`;
    lines.push(`| ${r.task} | ${r.engine} | ${range(r.ms, (x) => dur(x * 1000))} | ${vs} | ${t} |`);
  }
}

function adversarialTable(adv, lines) {
  lines.push(
    '',
    `### 4. Adversarial — time per evaluation / scan, median (min–max); peers capped at ${adv.capMs / 1000} s`,
    '',
  );
  lines.push(
    '| accepted condition (length) | ours | ours result | python3 reference | python3 result |',
    '|---|---:|---|---:|---|',
  );
  for (const c of adv.conditions) {
    lines.push(
      `| ${c.name} (${c.exprLength} chars) | ${range(c.ours.us, dur)} | ${c.ours.result} | ${c.python.timedOut ? capText(adv.capMs) : range(c.python.us, dur)} | ${c.python.result ?? 'killed'} |`,
    );
  }
  lines.push('', '| pattern and subject | ours (classifyLog, RE2) | V8 RegExp | python3 re |', '|---|---:|---:|---:|');
  const peer = (p) => (p.timedOut ? capText(adv.capMs) : `${dur(p.us)} (match: ${p.matched})`);
  for (const r of adv.redos)
    lines.push(
      `| ${r.name} | ${range(r.ours.us, dur)} (match: ${r.ours.matched}) | ${peer(r.v8)} | ${peer(r.python)} |`,
    );
  const e = adv.emptyMatch;
  if (e)
    lines.push(
      '',
      '| empty matches at every position (issue 12) | ours | without the pattern | target |',
      '|---|---:|---:|---:|',
      `| ${e.name} | ${dur(e.ms * 1000)} (${e.verdict}) | ${dur(e.msWithout * 1000)} | ≤ ${dur(e.targetMs * 1000)}${e.ok ? '' : ' **missed**'} |`,
    );
}

function redactionTable(red, lines) {
  lines.push(
    '',
    `### 5. Redaction — a ${(red.bytes / 2 ** 20).toFixed(0)} MiB training log scrubbed as a bundle scrubs it; MB/s (10⁶ bytes/s), median (min–max); peak RSS`,
    '',
    '| engine | in-process | whole process | peak RSS | paths / IPs / credentials | target |',
    '|---|---:|---:|---:|---|---|',
  );
  for (const r of red.rows) {
    const c = r.counts;
    const t = r.engine.endsWith('credentials')
      ? `≥ ${red.targetMBps} MB/s: ${r.MBps.median >= red.targetMBps ? 'met' : '**missed**'}`
      : '';
    lines.push(
      `| ${r.engine} | ${range(r.MBps, sig)} | ${range(r.wholeMBps, sig)} | ${r.maxRssMiB.toFixed(0)} MiB | ${c.paths} / ${c.ips} / ${c.secrets ?? '—'} | ${t} |`,
    );
  }
}

function manyPatternsTable(mp, lines) {
  const t = mp.targets;
  const names = mp.rows[0].engines.map((e) => e.name);
  lines.push(
    '',
    `### 6. Recipes of many patterns — whole process, median (min–max); ${(mp.logBytes / 2 ** 20).toFixed(0)} MiB clean log; ${mp.rg}`,
    '',
    `| patterns (recipe size) | ${names.join(' | ')} | peak RSS, ours scan | targets |`,
    `|---|${names.map(() => '---:').join('|')}|---:|---|`,
  );
  const byN = new Map(mp.rows.map((r) => [r.patterns, r]));
  for (const r of mp.rows) {
    const e = (name) => r.engines.find((x) => x.name === name);
    const check = e('ours: check').ms.median;
    const scan = e('ours: scan 1 MiB').ms.median;
    const py = e('python3: safe_load + re.compile').ms.median;
    const rss = e('ours: scan 1 MiB').maxRssMiB;
    const goals = [];
    const verdict = (ok) => (ok ? 'met' : '**missed**');
    if (t.check[r.patterns] !== undefined)
      goals.push(`check ≤ ${t.check[r.patterns]} ms: ${verdict(check <= t.check[r.patterns])}`);
    if (t.scan[r.patterns] !== undefined)
      goals.push(`scan ≤ ${t.scan[r.patterns]} ms: ${verdict(scan <= t.scan[r.patterns])}`);
    if (r.patterns === 1000)
      goals.push(
        `check ≤ ${t.checkVsPython}× python3 (${(check / py).toFixed(2)}×): ${verdict(check <= t.checkVsPython * py)}`,
      );
    if (r.patterns >= 1000) goals.push(`RSS ≤ ${t.rssMiB} MiB: ${verdict(rss <= t.rssMiB)}`);
    if (r.patterns === 30 && byN.has(2)) {
      const two = byN.get(2).engines.find((x) => x.name === 'ours: check').ms.median;
      goals.push(
        `+${(check - two).toFixed(0)} ms over 2 patterns (≤ ${t.thirtyOverTwoMs}): ${verdict(check - two <= t.thirtyOverTwoMs)}`,
      );
    }
    lines.push(
      `| ${r.patterns} (${(r.recipeBytes / 1024).toFixed(0)} KiB) | ${r.engines.map((x) => range(x.ms, dur1)).join(' | ')} | ${rss.toFixed(0)} MiB | ${goals.join('; ')} |`,
    );
  }
  const s = mp.sweep;
  lines.push(
    '',
    `Sweep overhead, ${s.trials} trials of \`true\`, 2 at a time (each way twice, in turn): ${s.ways.map((w) => `${w.name} ${range(w.ms, dur1)}`).join('; ')}. ` +
      `Per trial over bare \`true\`: sweep ${s.perTrialMs.sweep.toFixed(1)} ms (target ≤ ${t.sweepOverheadMs} ms: ${s.perTrialMs.sweep <= t.sweepOverheadMs ? 'met' : '**missed**'}), xargs of \`run\` ${s.perTrialMs.xargsRun.toFixed(1)} ms.`,
  );
}

/** Milliseconds, for whole-process rows. */
const dur1 = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

export function renderTable(res) {
  const m = res.machine;
  const lines = [
    `## aorta-probe benchmarks (${res.mode} run, ${res.date})`,
    '',
    `Machine: ${m.cores} cores, ${m.cpu}, ${Math.round(m.memGiB)} GiB RAM, Node ${m.node}, Python ${m.python}, load average at start ${m.loadavg}. ` +
      'All figures are single-threaded, measured in the same run.',
    '',
  ];
  const st = res.settings;
  if (st) {
    lines.push(
      `Repeats: conditions ${st.cond.runs} rounds over every case, each one timed loop of ${st.cond.ms} ms per engine (python3, then ours, cel-js, filtrex); scanning ${st.scan.repeats.ours} passes for ours and V8, ` +
        `${st.scan.repeats.slow} for the slow engines (prefilter off, re2-wasm naive, python3), ${st.scan.repeats.big} over the big log; ` +
        `whole-process scans ${st.scan.repeats.whole} spawns of ours and of rg, alternating, per 100 MiB log (${st.scan.repeats.bigWhole} on the big one); ` +
        `cold start ${st.coldRuns} spawns per command; adversarial up to ${st.adv.runs} runs (at least 2; fewer once 10 s are spent).`,
      '',
    );
  }
  if (res.conditions) conditionsTable(res.conditions, lines);
  if (res.scanning) scanningTable(res.scanning, lines);
  if (res.coldStart) coldTable(res.coldStart, lines);
  if (res.adversarial) adversarialTable(res.adversarial, lines);
  if (res.redaction) redactionTable(res.redaction, lines);
  if (res.manyPatterns) manyPatternsTable(res.manyPatterns, lines);
  lines.push('', ...res.notes.map((n) => `- ${n}`));
  return `${lines.join('\n')}\n`;
}

export function chartPanels(res) {
  const panels = [];
  if (res.conditions) {
    panels.push({
      title: '1. Condition evaluation (higher is better)',
      unit: 'evaluations per second',
      log: true,
      goal: { value: 10e6, label: 'target for ours batch: 10 M/s per core' },
      groups: res.conditions.map((r) => ({
        label: r.name,
        bars: Object.entries(r.evalsPerSec).map(([e, s]) => ({
          series: e === 'python3 reference' ? 'python3' : e,
          value: s.median,
        })),
      })),
    });
  }
  if (res.scanning) {
    const by = (log) => res.scanning.filter((r) => r.log === log);
    const groups = [...new Set(res.scanning.map((r) => r.log))].map((log) => ({
      label: log === 'big' ? `big log\n(${(by(log)[0].bytes / 2 ** 30).toFixed(2)} GiB)` : log.replace(', ', ',\n'),
      rows: by(log),
    }));
    panels.push({
      title: '2. Log scanning throughput (higher is better)',
      unit: 'MB/s (10⁶ bytes/s), end to end',
      log: true,
      goal: { value: 1000, label: 'target for ours on the clean log: 1 GB/s' },
      groups: groups.map((g) => ({
        label: g.label,
        bars: g.rows.map((r) => ({ series: series(r.engine), value: r.MBps?.median ?? NaN })),
      })),
    });
    panels.push({
      title: '2b. Peak RSS of each scanning process (lower is better)',
      unit: 'MiB',
      log: false,
      goal: { value: 80, label: 'target for ours, whole process, on the big log: 80 MiB' },
      groups: groups.map((g) => ({
        label: g.label,
        bars: g.rows.map((r) => ({ series: series(r.engine), value: r.maxRssMiB ?? NaN })),
      })),
    });
  }
  if (res.coldStart) {
    const tasks = [...new Set(res.coldStart.rows.map((r) => r.task))];
    panels.push({
      title: '3. Cold start, whole process (lower is better)',
      unit: 'milliseconds',
      log: false,
      groups: tasks.map((t) => ({
        label: t,
        bars: res.coldStart.rows
          .filter((r) => r.task === t)
          .map((r) => ({ series: r.engine.startsWith('python3') ? 'python3' : 'ours', value: r.ms.median })),
      })),
    });
  }
  if (res.adversarial) {
    const cap = res.adversarial.capMs * 1000;
    const bar = (s, p) =>
      p.timedOut ? { series: s, value: cap, capped: true } : { series: s, value: p.us.median ?? p.us };
    panels.push({
      title: '4. Adversarial inputs (lower is better; hatched = killed at the cap)',
      unit: 'microseconds per evaluation / scan',
      log: true,
      groups: [
        ...res.adversarial.conditions.map((c) => ({
          label: c.short,
          bars: [bar('ours', c.ours), bar('python3', c.python)],
        })),
        ...res.adversarial.redos.map((r) => ({
          label: r.short,
          bars: [bar('ours', r.ours), bar('V8 RegExp', r.v8), bar('python3', r.python)],
        })),
      ],
    });
  }
  if (res.manyPatterns) {
    panels.push({
      title: '6. Cost against the number of patterns (lower is better)',
      unit: 'ms, whole process',
      log: true,
      goal: { value: 1000, label: 'target: check of 1,000 patterns ≤ 1 s' },
      groups: res.manyPatterns.rows.map((r) => ({
        label: `${r.patterns} patterns`,
        bars: r.engines.map((e) => ({ series: e.name, value: e.ms.median })),
      })),
    });
  }
  return panels;
}
