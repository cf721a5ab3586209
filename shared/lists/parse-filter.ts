import type { AttributeType, CollectionSpec } from './collection-spec.ts';
import { type FilterTerm, type FilterValue, LIST_LIMITS, ParamSyntaxError } from './list-params.ts';

/**
 * `q` (docs/contract.md §3, grammar in docs/lists.md):
 *
 *   q     = term *( sep "and" sep term )        ; "and" in any case; sep = spaces or "+"
 *   term  = "(" *WS name *WS "=" *WS value *WS ")"
 *   value = quoted / bare                        ; quoted: "..." with \" and \\ escapes
 *                                                ; bare: up to the next ")", trimmed, non-empty
 *
 * A bare `null` matches a missing attribute; `"null"` is the string. Values are converted to the
 * attribute's type here, so a wrong value is a 400 before anything is read.
 */
export function parseFilter(spec: CollectionSpec, q: string): FilterTerm[] {
  if (q.trim() === '') return [];
  if (q.length > LIST_LIMITS.maxQueryLength) throw new ParamSyntaxError(`must be at most ${LIST_LIMITS.maxQueryLength} characters`);
  const s = new Scanner(q);
  const terms: FilterTerm[] = [];
  s.skip(/[\s+]*/y);
  for (;;) {
    terms.push(readTerm(spec, s));
    if (terms.length > LIST_LIMITS.maxFilterTerms) throw new ParamSyntaxError(`at most ${LIST_LIMITS.maxFilterTerms} terms`);
    s.skip(/[\s+]*/y);
    if (s.done()) return terms;
    if (!s.skip(/and(?=[\s+(]|$)/iy)) throw s.error('expected "and" between terms');
    s.skip(/[\s+]*/y);
  }
}

function readTerm(spec: CollectionSpec, s: Scanner): FilterTerm {
  if (!s.skip(/\(/y)) throw s.error('expected "("');
  s.skip(/\s*/y);
  const at = s.pos;
  const attribute = s.match(/[A-Za-z_][A-Za-z0-9_]*/y);
  if (!attribute) throw s.error('expected an attribute name');
  // docs/contract.md §8: messages point at a position (1-based), never quote what was sent.
  const def = spec.attributes.get(attribute);
  if (!def) throw new ParamSyntaxError(`unknown attribute at position ${at + 1}`);
  if (!def.filterable) throw new ParamSyntaxError(`cannot filter on the attribute at position ${at + 1}`);
  s.skip(/\s*/y);
  if (!s.skip(/=/y)) throw s.error('expected "=" (the only operator)');
  s.skip(/\s*/y);
  const valueAt = s.pos;
  let raw: string;
  let quoted = false;
  if (s.peek() === '"') {
    raw = readQuoted(s);
    quoted = true;
    s.skip(/\s*/y);
    if (!s.skip(/\)/y)) throw s.error('expected ")" after the quoted value');
  } else {
    const value = s.match(/[^)]*/y) ?? '';
    if (!s.skip(/\)/y)) throw s.error('missing ")"');
    raw = value.trim();
    if (raw === '') throw new ParamSyntaxError(`missing value at position ${valueAt + 1} (use "" for the empty string)`);
  }
  return { attribute, value: toValue({ attribute: at, value: valueAt }, def.type, raw, quoted) };
}

function readQuoted(s: Scanner): string {
  const start = s.pos;
  const m = s.match(/"((?:[^"\\]|\\["\\])*)"/y);
  if (m === undefined) {
    s.pos = start;
    throw s.error('unterminated quoted value (escape " and \\ with \\)');
  }
  return m.slice(1, -1).replace(/\\(["\\])/g, '$1');
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;
const DAY_MS = 86_400_000;

/** `at`: the 0-based positions in `q` of the term's attribute and value, for the messages. */
function toValue(at: { attribute: number; value: number }, type: AttributeType, raw: string, quoted: boolean): FilterValue {
  if (!quoted && raw === 'null') return { kind: 'null' };
  const bad = (what: string) => new ParamSyntaxError(`the value at position ${at.value + 1} must be ${what}`);
  switch (type) {
    case 'string':
      return { kind: 'string', value: raw };
    case 'uuid':
      if (!UUID.test(raw)) throw bad('a UUID');
      return { kind: 'string', value: raw.toLowerCase() };
    case 'number': {
      const n = Number(raw);
      if (!NUMBER.test(raw) || !Number.isFinite(n)) throw bad('a number');
      return { kind: 'number', value: n };
    }
    case 'boolean': {
      const b = raw.toLowerCase();
      if (b !== 'true' && b !== 'false') throw bad('true or false');
      return { kind: 'boolean', value: b === 'true' };
    }
    case 'timestamp': {
      const day = DATE.exec(raw);
      const from = day || DATE_TIME.test(raw) ? parseInstant(raw) : NaN;
      if (Number.isNaN(from)) throw bad('an ISO 8601 date (2024-05-01) or date-time with a zone (2024-05-01T10:00:00.000Z)');
      // A date alone means that whole UTC day: "created on 2024-05-01" is what people ask for.
      return { kind: 'instant', from, to: day ? from + DAY_MS : from + 1 };
    }
    default:
      throw new ParamSyntaxError(`cannot filter on the attribute at position ${at.attribute + 1}`);
  }
}

/** ms since the epoch, NaN when invalid (including 2024-02-30, which Date.parse would accept). */
export function parseInstant(value: string): number {
  // Date.parse handles millisecond precision; longer fractions are cut, not rounded.
  const ms = Date.parse(value.replace(/(\.\d{3})\d+/, '$1'));
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (Number.isNaN(ms) || !day) return NaN;
  const [y, m, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
  const check = new Date(Date.UTC(y, m - 1, d));
  return check.getUTCMonth() === m - 1 && check.getUTCDate() === d ? ms : NaN;
}

/** A sticky-regex cursor over the `q` text; positions in messages are 1-based. */
class Scanner {
  pos = 0;
  constructor(private readonly text: string) {}
  done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(): string | undefined {
    return this.text[this.pos];
  }
  match(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0];
  }
  skip(re: RegExp): boolean {
    return this.match(re) !== undefined;
  }
  error(message: string): ParamSyntaxError {
    return new ParamSyntaxError(`${message} at position ${this.pos + 1}`);
  }
}
