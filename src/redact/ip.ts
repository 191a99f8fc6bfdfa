/**
 * Python's `ipaddress.ip_address(s).version` for the candidates the redactor's regexes find (3.11,
 * `ipaddress._BaseV4._ip_int_from_string` / `_BaseV6._ip_int_from_string`): a candidate that is not a valid address
 * stays as it is (`12:30`, `10:15:30`, `01.2.3.4`), exactly as the original's `_valid_ip` decides.
 */

/** 4 when `s` is a dotted-quad IPv4 address Python accepts: four decimal octets 0–255, no leading zeros. */
export function ipv4Valid(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return false;
    if (p.length > 1 && p.startsWith('0')) return false;
    if (Number(p) > 255) return false;
  }
  return true;
}

/** Whether Python's `IPv6Address(s)` accepts `s` (no scope id: the redactor's regexes never include `%`). */
export function ipv6Valid(s: string): boolean {
  if (s === '') return false;
  let parts = s.split(':');
  // At least 3 parts ("::" alone is ['', '', '']).
  if (parts.length < 3) return false;
  const last = parts[parts.length - 1]!;
  if (last.includes('.')) {
    if (!ipv4Valid(last)) return false;
    parts = [...parts.slice(0, -1), '0', '0'];
  }
  if (parts.length > 9) return false;
  let skip: number | null = null;
  for (let i = 1; i < parts.length - 1; i++) {
    if (parts[i] === '') {
      if (skip !== null) return false; // more than one '::'
      skip = i;
    }
  }
  let hi: number;
  let lo: number;
  if (skip !== null) {
    hi = skip;
    lo = parts.length - skip - 1;
    if (parts[0] === '') {
      hi -= 1;
      if (hi !== 0) return false; // a leading ':' only as part of '::'
    }
    if (parts[parts.length - 1] === '') {
      lo -= 1;
      if (lo !== 0) return false; // a trailing ':' only as part of '::'
    }
    if (8 - (hi + lo) < 1) return false;
  } else {
    if (parts.length !== 8) return false;
    if (parts[0] === '' || parts[parts.length - 1] === '') return false;
    hi = parts.length;
    lo = 0;
  }
  const hextets = [...parts.slice(0, hi), ...parts.slice(parts.length - lo)];
  return hextets.every((h) => /^[0-9a-fA-F]{1,4}$/.test(h));
}
