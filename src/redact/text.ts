/**
 * Scrubbing free text (a log, a Markdown matrix, a JSON string leaf): the original's path and IP rewrites
 * (ROCm/aorta `probe/redaction.py`, upstream-probe-runs.md §1.3, its newest regexes, verbatim) and, beyond it (its
 * open issue #420), credentials — each replaced by a numbered placeholder, `<PATH:N>`, `<IPV4:N>`, `<IPV6:N>`,
 * `<SECRET:N>`, `<REDACTED:N>`, N counted from 0 per kind in order of first sight across one file (one `TextScrubber`
 * per file, as the original's newest shared `_PathIndex`/`_IpIndex`). No reverse map is kept anywhere: the indexes
 * live in memory for one file and are dropped with the scrubber.
 *
 * Order per window: secrets (so a token inside a URL or a path is never half-rewritten as a path first), the
 * recipe's `extra_patterns`, paths, bracketed IPv6, unbracketed IPv6, IPv4 (the original's IP order). An IP
 * candidate is rewritten only when Python's `ipaddress` accepts it (ip.ts): `12:30` survives.
 *
 * The fixed regexes run on V8's engine: each is linear on its own (no nested quantifier over one character class;
 * the path regex's components are delimited by `/`, the IPv6 groups by `:`), checked by the original's DoS case,
 * ten million `/` (test/redact-text.test.ts). The recipe's `extra_patterns` are untrusted and run on RE2.
 */
import { compileRegex, matchAll, type RegexHandle } from '../regex/index.js';
import { ipv4Valid, ipv6Valid } from './ip.js';

// The original's newest regexes (upstream-probe-runs.md §1.3), as JavaScript.
const PATH_RE = /(?<![A-Za-z0-9_.-])\/(?:[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_.-]+/g;
// Python's str `\b` and `\d` are Unicode-aware: `\b` as the lookarounds on `[\p{L}\p{N}_]` (str.isalnum() or
// '_'), `\d` as `\p{Nd}` (a non-ASCII digit then fails `ipaddress`, as in the original).
const IPV4_RE =
  /(?<![\p{L}\p{N}_])(?:(?:25[0-5]|2[0-4]\p{Nd}|[01]?\p{Nd}\p{Nd}?)\.){3}(?:25[0-5]|2[0-4]\p{Nd}|[01]?\p{Nd}\p{Nd}?)(?![\p{L}\p{N}_])/gu;
const IPV6_BRACKETED_RE = /\[([0-9a-fA-F:.]+)\]/g;
const IPV6_UNBRACKETED_RE =
  /(?<![0-9a-fA-F:.])(?:(?:[0-9a-fA-F]{0,4}:)+[0-9a-fA-F]{0,4}|::(?:[0-9a-fA-F]{0,4}:){0,6}[0-9a-fA-F]{0,4}|[0-9a-fA-F]{0,4}::(?:[0-9a-fA-F]{0,4}:){0,6}[0-9a-fA-F]{0,4})(?![0-9a-fA-F:.])/g;

/**
 * Credentials in free text, each a regex whose `secret` group (or whole match) is replaced; what is kept around it
 * (a key name, `Bearer `, a URL's scheme and host) stays readable. The false-positive policy: a rule needs a
 * shape a credential has and ordinary log text does not (a vendor prefix and length, a PEM armour line, a key
 * named like a secret followed by `=` or `:`), so a hash, a UUID or a hex address is left alone; docs/redaction.md
 * lists them.
 */
export const SECRET_RULES: readonly { readonly name: string; readonly re: RegExp }[] = [
  {
    name: 'private key block',
    re: /(?<secret>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)/g,
  },
  { name: 'HTTP authorization', re: /\b(?:Bearer|Basic|Token)\s+(?<secret>[A-Za-z0-9._~+/=-]{8,})/g },
  { name: 'URL userinfo', re: /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/(?<secret>[^\s/@:]+:[^\s/@]+)@/g },
  { name: 'AWS access key id', re: /\b(?<secret>(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16})\b/g },
  {
    name: 'AWS secret access key',
    re: /\baws_secret_access_key\b["']?\s*[=:]\s*["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
  },
  { name: 'GitHub token', re: /\b(?<secret>gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { name: 'GitLab token', re: /\b(?<secret>glpat-[A-Za-z0-9_-]{20,})/g },
  { name: 'Slack token', re: /\b(?<secret>xox[abposr]-[A-Za-z0-9-]{10,})/g },
  { name: 'Hugging Face token', re: /\b(?<secret>hf_[A-Za-z0-9]{30,})\b/g },
  { name: 'OpenAI-style key', re: /\b(?<secret>sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,})/g },
  { name: 'JWT', re: /\b(?<secret>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,})/g },
  {
    name: 'secret assignment',
    // Not inside a placeholder already written (`<SECRET:0>` names a secret too), and the value is no placeholder.
    re: /(?<![<A-Za-z0-9_.-])[A-Za-z0-9_.-]*(?:password|passwd|pwd|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key)[A-Za-z0-9_.-]*["']?\s*[=:]\s*["']?(?<secret>[^\s"',;&<>]{4,})/gi,
  },
];

export interface RedactionCounts {
  pathsRewritten: number;
  ipsRewritten: number;
  secretsRedacted: number;
  /** Matches of the recipe's `extra_patterns`. */
  patternsRedacted: number;
}

export interface TextScrubOptions {
  readonly scrubPaths: boolean;
  readonly scrubIpAddresses: boolean;
  readonly scrubSecrets: boolean;
  /** Python `re` sources, run on RE2 (untrusted). */
  readonly extraPatterns?: readonly string[];
}

/** Distinct values of one kind, numbered in order of first sight. */
class Index {
  private readonly seen = new Map<string, number>();
  constructor(private readonly tag: string) {}
  placeholder(value: string): string {
    let n = this.seen.get(value);
    if (n === undefined) {
      n = this.seen.size;
      this.seen.set(value, n);
    }
    return `<${this.tag}:${n}>`;
  }
}

/** One file's scrubbing state: its placeholder numbering and its counts. */
export class TextScrubber {
  readonly counts: RedactionCounts = { pathsRewritten: 0, ipsRewritten: 0, secretsRedacted: 0, patternsRedacted: 0 };
  private readonly paths = new Index('PATH');
  private readonly v4 = new Index('IPV4');
  private readonly v6 = new Index('IPV6');
  private readonly secrets = new Index('SECRET');
  private readonly redacted = new Index('REDACTED');
  private readonly extra: RegexHandle[];

  constructor(private readonly options: TextScrubOptions) {
    this.extra = (options.extraPatterns ?? []).map((p) => compileRegex(p, ''));
  }

  /** Releases the RE2 programs of `extra_patterns`. */
  dispose(): void {
    for (const r of this.extra) r.dispose();
  }

  /** One window of text (a whole line or more; a token is never split across two calls by `lineWindows`). */
  scrub(text: string): string {
    let out = text;
    if (this.options.scrubSecrets) {
      for (const rule of SECRET_RULES) {
        out = out.replace(rule.re, (...args: unknown[]) => {
          const match = args[0] as string;
          const groups = args[args.length - 1] as { secret?: string };
          const secret = groups.secret ?? match;
          this.counts.secretsRedacted++;
          const at = match.lastIndexOf(secret);
          return match.slice(0, at) + this.secrets.placeholder(secret) + match.slice(at + secret.length);
        });
      }
    }
    for (const re of this.extra) out = this.replaceRe2(re, out);
    if (this.options.scrubPaths) {
      out = out.replace(PATH_RE, (m) => {
        this.counts.pathsRewritten++;
        return this.paths.placeholder(m);
      });
    }
    if (this.options.scrubIpAddresses) {
      out = out.replace(IPV6_BRACKETED_RE, (m, inner: string) => {
        if (!ipv6Valid(inner)) return m;
        this.counts.ipsRewritten++;
        return this.v6.placeholder(inner);
      });
      out = out.replace(IPV6_UNBRACKETED_RE, (m) => {
        if (!ipv6Valid(m)) return m;
        this.counts.ipsRewritten++;
        return this.v6.placeholder(m);
      });
      out = out.replace(IPV4_RE, (m) => {
        if (!ipv4Valid(m)) return m;
        this.counts.ipsRewritten++;
        return this.v4.placeholder(m);
      });
    }
    return out;
  }

  private replaceRe2(re: RegexHandle, text: string): string {
    let out = '';
    let from = 0;
    for (const m of matchAll(re, text)) {
      // An empty match rewrites nothing.
      if (m.end === m.index) continue;
      out += text.slice(from, m.index) + this.redacted.placeholder(m.match);
      this.counts.patternsRedacted++;
      from = m.end;
    }
    return out + text.slice(from);
  }
}
