/**
 * POSIX shell quoting for the generated scripts: the one way a value reaches the shell text of `sweep --emit
 * slurm`. A word is written as it is when every character is plainly safe, else inside single quotes, where
 * the shell takes every byte literally (a newline, `$(...)`, a backquote, NEL or U+2028 included) and only
 * `'` needs the `'\''` dance.
 */
import { strRepr } from '../condition/repr.js';

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `word` as one shell word. A CR LF pair inside the word is written as `'\r''\n'` (one word still: adjacent
 * quoted strings join), because sbatch refuses a script that holds a CR LF pair anywhere. A NUL cannot be an
 * argument of any program, so a word holding one is a RangeError rather than a script that means something else.
 */
export function shellQuote(word: string): string {
  if (word.includes('\0')) throw new RangeError(`a shell word cannot hold a NUL character: ${strRepr(word)}`);
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`).replace(/\r\n/g, `\r''\n`)}'`;
}

export function shellJoin(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}
