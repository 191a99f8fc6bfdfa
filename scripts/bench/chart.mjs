// bench/chart.svg, written by hand (no plotting dependency): one panel per part, grouped bars —
// one group per workload, one bar per engine, the same colour for an engine in every panel.
// Throughputs span orders of magnitude, so those panels use a log axis; a bar that hit the time
// cap is drawn to the cap, hatched, and labelled "> cap".

const COLORS = {
  ours: '#1f77b4',
  'ours batch': '#1f77b4',
  'ours single': '#6baed6',
  'ours, prefilter off': '#9ecae1',
  python3: '#ff7f0e',
  'cel-js': '#2ca02c',
  filtrex: '#9467bd',
  'V8 RegExp': '#d62728',
  're2-wasm naive': '#8c564b',
  'ours, whole process': '#08306b',
  rg: '#e377c2',
};
const colorOf = (s) => COLORS[s] ?? '#7f7f7f';
const hatchId = (s) => `hatch-${colorOf(s).slice(1)}`;
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const W = 980;
const PLOT_X = 70;
const PLOT_W = W - PLOT_X - 20;
const PLOT_H = 190;

function fmt(v) {
  if (v >= 1e9) return `${+(v / 1e9).toPrecision(3)}G`;
  if (v >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  return `${+v.toPrecision(3)}`;
}

/**
 * One panel at vertical offset `y`. groups: [{ label, bars: [{ series, value, capped? }] }].
 * Returns { svg, height }.
 */
function panel(y, { title, unit, groups, log, goal }) {
  const values = groups
    .flatMap((g) => g.bars.map((b) => b.value))
    .concat(goal ? [goal.value] : [])
    .filter((v) => Number.isFinite(v) && v > 0);
  const series = [...new Set(groups.flatMap((g) => g.bars.map((b) => b.series)))];
  const out = [];
  const top = y + 44;
  let lo = 0;
  let hi = Math.max(...values, 1) * 1.15;
  let scale;
  const ticks = [];
  if (log) {
    lo = 10 ** Math.floor(Math.log10(Math.min(...values)));
    hi = 10 ** Math.ceil(Math.log10(Math.max(...values) * 1.01));
    scale = (v) => (PLOT_H * (Math.log10(Math.max(v, lo)) - Math.log10(lo))) / (Math.log10(hi) - Math.log10(lo));
    for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
  } else {
    const step = 10 ** Math.floor(Math.log10(hi / 2));
    const nice = [1, 2, 5].map((m) => m * step).find((s) => hi / s <= 6) ?? step * 10;
    hi = Math.ceil(hi / nice) * nice;
    scale = (v) => (PLOT_H * v) / hi;
    for (let t = 0; t <= hi; t += nice) ticks.push(t);
  }
  out.push(`<text x="${PLOT_X}" y="${y + 16}" class="t">${esc(title)}</text>`);
  out.push(`<text x="${PLOT_X}" y="${y + 32}" class="s">${esc(unit)}${log ? ' — log scale' : ''}</text>`);
  // Legend on the unit line, right-aligned (titles are longer than units).
  let lx = W - 20;
  for (const s of [...series].reverse()) {
    const w = 18 + s.length * 6.4;
    lx -= w;
    out.push(
      `<rect x="${lx}" y="${y + 23}" width="10" height="10" fill="${colorOf(s)}"/><text x="${lx + 14}" y="${y + 32}" class="l">${esc(s)}</text>`,
    );
  }
  for (const t of ticks) {
    const ty = top + PLOT_H - scale(t);
    out.push(
      `<line x1="${PLOT_X}" x2="${PLOT_X + PLOT_W}" y1="${ty}" y2="${ty}" class="g"/><text x="${PLOT_X - 6}" y="${ty + 4}" class="a">${fmt(t)}</text>`,
    );
  }
  const gw = PLOT_W / groups.length;
  groups.forEach((g, gi) => {
    const n = g.bars.length;
    const bw = Math.min(34, (gw - 16) / n);
    const x0 = PLOT_X + gi * gw + (gw - bw * n) / 2;
    g.bars.forEach((b, bi) => {
      const x = x0 + bi * bw;
      if (!Number.isFinite(b.value)) {
        out.push(`<text x="${x + bw / 2}" y="${top + PLOT_H - 4}" class="v">n/a</text>`);
        return;
      }
      const h = Math.max(1, scale(b.value));
      const fill = b.capped ? `url(#${hatchId(b.series)})` : colorOf(b.series);
      out.push(
        `<rect x="${x + 1}" y="${top + PLOT_H - h}" width="${bw - 2}" height="${h}" fill="${fill}" stroke="${colorOf(b.series)}"><title>${esc(`${g.label} — ${b.series}: ${b.capped ? '> ' : ''}${fmt(b.value)} ${unit}`)}</title></rect>`,
      );
      out.push(
        `<text x="${x + bw / 2}" y="${top + PLOT_H - h - 3}" class="v">${b.capped ? '&gt;' : ''}${fmt(b.value)}</text>`,
      );
    });
    const lines = g.label.split('\n');
    for (const [li, line] of lines.entries()) {
      out.push(
        `<text x="${PLOT_X + gi * gw + gw / 2}" y="${top + PLOT_H + 14 + li * 12}" class="x">${esc(line)}</text>`,
      );
    }
  });
  if (goal) {
    // The issue's target, so a reader sees at a glance which bars reach it.
    const gy = top + PLOT_H - scale(goal.value);
    out.push(
      `<line x1="${PLOT_X}" x2="${PLOT_X + PLOT_W}" y1="${gy}" y2="${gy}" class="goal"/><text x="${PLOT_X + 4}" y="${gy - 3}" class="gl">${esc(goal.label)}</text>`,
    );
  }
  out.push(`<line x1="${PLOT_X}" x2="${PLOT_X + PLOT_W}" y1="${top + PLOT_H}" y2="${top + PLOT_H}" class="ax"/>`);
  return { svg: out.join('\n'), height: 44 + PLOT_H + 44 };
}

/** The whole SVG from panel specs. */
export function renderChart(caption, panels) {
  let y = 40;
  const parts = [];
  for (const p of panels) {
    const { svg, height } = panel(y, p);
    parts.push(svg);
    y += height + 16;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${y}" viewBox="0 0 ${W} ${y}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">
<style>
.t{font-size:15px;font-weight:600;fill:#222}.s{font-size:11px;fill:#555}.l{font-size:11px;fill:#333}
.a{font-size:10px;fill:#666;text-anchor:end}.x{font-size:11px;fill:#333;text-anchor:middle}
.v{font-size:8px;fill:#333;text-anchor:middle}.goal{stroke:#2ca02c;stroke-dasharray:6 4;stroke-width:1.5}.gl{font-size:10px;fill:#2ca02c;paint-order:stroke;stroke:#fff;stroke-width:3px}.g{stroke:#e5e5e5}.ax{stroke:#999}.c{font-size:12px;fill:#444}
</style>
<defs>${[...new Set(Object.values(COLORS))].map((c) => `<pattern id="hatch-${c.slice(1)}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="${c}" stroke-width="3"/></pattern>`).join('')}<pattern id="hatch-7f7f7f" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#7f7f7f" stroke-width="3"/></pattern></defs>
<rect width="100%" height="100%" fill="#fff"/>
<text x="${PLOT_X}" y="24" class="c">${esc(caption)}</text>
${parts.join('\n')}
</svg>
`;
}
