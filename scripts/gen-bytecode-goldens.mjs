// Writes fixtures/bytecode/golden-listings.txt: the disassembly of each condition below, as the
// compiler lowers it today. Regenerate after a deliberate change to the compiler or the contract
// (npm run build first), and review the diff: the listing is the compiler's observable output.
//
//   node scripts/gen-bytecode-goldens.mjs
import { writeFileSync } from 'node:fs';
import { compileCondition, disassemble } from '../dist/src/index.js';

export const CONDITIONS = [
  'exit_code == 137',
  'exit_code != 0',
  'walltime_sec > 60',
  'peak_vram_mib > 0',
  "capture['loss'] == 'nan'",
  "math.isnan(float(capture['loss']))",
  "math.isinf(float(capture['x']))",
  "int(capture['code']) == 137",
  "int(capture['x'], 16) > 255",
  "len(capture['msg']) > 0",
  'len(capture) > 0',
  'capture',
  "exit_code == 137 and len(capture['msg']) > 0",
  'walltime_sec > 60 and peak_vram_mib > 0',
  'exit_code != 0 and walltime_sec > 1.0 and peak_vram_mib > 100',
  'exit_code == 1 or exit_code == 2 or exit_code == 3',
  'not exit_code',
  '-exit_code < 0',
  '+walltime_sec',
  '(1 if exit_code != 0 else 0) or (walltime_sec > 0)',
  '0 < exit_code < 10',
  '(walltime_sec / 60 if exit_code == 0 else walltime_sec) > 1',
  '1 < (exit_code if walltime_sec > 0 else peak_vram_mib)',
  '0 <= exit_code <= walltime_sec < 100',
  // a middle operand that is not a literal or a variable: evaluated once, kept under the result
  "0 < int(capture['n']) < 10",
  '1 < 2',
  '100 >= peak_vram_mib',
  "'nan' == capture",
  '7/2',
  '-5//2',
  '1 - 2 + 3',
  '1j + 2',
  '-0.0',
  '1e16',
  "b'ab' + b'c'",
  "'a' + 'b' == 'ab'",
  '...',
  'None',
  'True',
  'float',
  'len',
  'math.isnan',
  'float()',
  'int()',
  "capture['a'] if capture['b'] else capture['c']",
  "capture[capture['k']] == 'v'",
  'capture[0]',
  'len(1,1,1,1,1,1,1,1,1)',
  'len(1/0,1,1,1,1,1,1,1,1) or True',
  "'\\ud83d' + '\\ude00'",
];

const meta = {
  generator: 'scripts/gen-bytecode-goldens.mjs',
  command: 'npm run build && node scripts/gen-bytecode-goldens.mjs',
  python: 'not used', // the compiler's own output is the golden; CPython agreement is the eval goldens'
};
const header = [
  `# meta: ${JSON.stringify(meta)}`,
  '# Bytecode listings of conditions, as `disassemble(compileCondition(c).program)` prints them.',
  '# Each entry: a line `== <condition>`, then its listing.',
];
let out = `${header.join('\n')}\n`;
for (const c of CONDITIONS) out += `\n== ${c}\n${disassemble(compileCondition(c).program)}`;
writeFileSync(new URL('../fixtures/bytecode/golden-listings.txt', import.meta.url), out);
console.log(`wrote ${CONDITIONS.length} listings`);
