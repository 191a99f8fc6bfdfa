/**
 * PyYAML's `!!timestamp` values: `datetime.date` and `datetime.datetime` as
 * `SafeConstructor.construct_yaml_timestamp` builds them (microseconds, a fixed UTC offset or
 * naive). A JS `Date` cannot hold them: it has milliseconds only, no naive form, and rolls
 * `2001-02-30` over into March where Python raises `ValueError`.
 *
 * No recipe key takes a date, so a timestamp only ever reaches a user in a typed rejection
 * (`must be a string, got date`) or in a `repr()` inside a message; both must read as Python's.
 */

/** The implicit resolver (`resolver.py`): a date alone needs two-digit month and day. */
export const PY_TIMESTAMP =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;

/** `SafeConstructor.timestamp_regexp` (`$` as Python's: a final newline may follow). */
const PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?\n?$/;

export interface PyTime {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly microsecond: number;
  /** UTC offset in minutes, or null for a naive datetime. */
  readonly offsetMinutes: number | null;
}

/** Raised where Python's `datetime` raises `ValueError` (or the constructor another exception). */
export class TimestampError extends Error {}

export class PyTimestamp {
  private constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
    /** null for a `datetime.date`. */
    readonly time: PyTime | null,
  ) {}

  get typeName(): 'date' | 'datetime' {
    return this.time === null ? 'date' : 'datetime';
  }

  /** `construct_yaml_timestamp(value)`, with `datetime`'s range checks. */
  static construct(value: string): PyTimestamp {
    const m = PARTS.exec(value);
    // PyYAML calls `.groupdict()` on the failed match.
    if (m === null) throw new TimestampError("AttributeError: 'NoneType' object has no attribute 'groupdict'");
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (m[4] === undefined) {
      checkDate(year, month, day);
      return new PyTimestamp(year, month, day, null);
    }
    const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])];
    const microsecond = m[7] ? Number(m[7].slice(0, 6).padEnd(6, '0')) : 0;
    let offsetMinutes: number | null = null;
    if (m[9] !== undefined) {
      offsetMinutes = (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11] ?? 0));
      if (Math.abs(offsetMinutes) >= 24 * 60) {
        throw new TimestampError(
          `offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not ${timedeltaRepr(offsetMinutes * 60)}.`,
        );
      }
    } else if (m[8] === 'Z') offsetMinutes = 0;
    // In Python's order: the timezone is built first, then `datetime(...)` checks its fields.
    checkDate(year, month, day);
    if (hour > 23) throw new TimestampError('hour must be in 0..23');
    if (minute > 59) throw new TimestampError('minute must be in 0..59');
    if (second > 59) throw new TimestampError('second must be in 0..59');
    return new PyTimestamp(year, month, day, { hour, minute, second, microsecond, offsetMinutes });
  }

  /** `repr(value)`. */
  repr(): string {
    const t = this.time;
    if (t === null) return `datetime.date(${this.year}, ${this.month}, ${this.day})`;
    const parts = [this.year, this.month, this.day, t.hour, t.minute];
    if (t.second || t.microsecond) parts.push(t.second);
    if (t.microsecond) parts.push(t.microsecond);
    const tz = t.offsetMinutes === null ? '' : `, tzinfo=${timezoneRepr(t.offsetMinutes)}`;
    return `datetime.datetime(${parts.join(', ')}${tz})`;
  }

  /** `value.isoformat()`. */
  isoformat(): string {
    const date = `${pad(this.year, 4)}-${pad(this.month, 2)}-${pad(this.day, 2)}`;
    const t = this.time;
    if (t === null) return date;
    const frac = t.microsecond ? `.${pad(t.microsecond, 6)}` : '';
    let tz = '';
    if (t.offsetMinutes !== null) {
      const a = Math.abs(t.offsetMinutes);
      tz = `${t.offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(a / 60), 2)}:${pad(a % 60, 2)}`;
    }
    return `${date}T${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}${frac}${tz}`;
  }

  /**
   * Python dict-key identity: a date never equals a datetime, a naive datetime never equals an
   * aware one, and aware datetimes are equal when they name the same instant.
   */
  hashKey(): string {
    const t = this.time;
    if (t === null) return `date:${this.isoformat()}`;
    if (t.offsetMinutes === null) return `naive:${this.isoformat()}`;
    const d = new Date(0);
    d.setUTCFullYear(this.year, this.month - 1, this.day); // not Date.UTC: it maps years 0-99 to 19xx
    d.setUTCHours(t.hour, t.minute - t.offsetMinutes, t.second);
    return `aware:${d.getTime()}.${pad(t.microsecond, 6)}`;
  }
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function checkDate(year: number, month: number, day: number): void {
  if (year < 1) throw new TimestampError(`year ${year} is out of range`);
  if (month < 1 || month > 12) throw new TimestampError('month must be in 1..12');
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day < 1 || day > days) throw new TimestampError('day is out of range for month');
}

/** `repr(datetime.timedelta(seconds=s))`: days may be negative, seconds are 0..86399. */
function timedeltaRepr(s: number): string {
  if (s === 0) return 'datetime.timedelta(0)';
  const days = Math.floor(s / 86400);
  const secs = s - days * 86400;
  const fields = [days ? `days=${days}` : '', secs ? `seconds=${secs}` : ''].filter(Boolean);
  return `datetime.timedelta(${fields.join(', ')})`;
}

function timezoneRepr(offsetMinutes: number): string {
  return offsetMinutes === 0 ? 'datetime.timezone.utc' : `datetime.timezone(${timedeltaRepr(offsetMinutes * 60)})`;
}
