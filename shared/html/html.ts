/**
 * HTML that is safe to send: what `html` and `trusted` return. Anything else interpolated into
 * `html` is text and gets escaped, so a forgotten escape cannot happen; only a reviewer-visible
 * `trusted(...)` call lets markup through (the lit-html / Go html/template idea, without a
 * library: the hosted pages are a handful of small forms).
 */
export class SafeHtml {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  toString(): string {
    return this.#value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text as HTML text or a quoted attribute value (OWASP XSS cheat sheet rules #1 and #2). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);

/** Markup the caller vouches for (a constant, or built by `html`). Never pass request data. */
export const trusted = (markup: string): SafeHtml => new SafeHtml(markup);

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Tagged template: the literal parts are markup, every `${value}` is escaped text unless it is
 * SafeHtml (a nested `html` fragment or `trusted`); arrays render item by item; null, undefined
 * and false render nothing. Interpolate only into text or double-quoted attribute values, never
 * into a tag name, an unquoted attribute, a URL attribute of untrusted origin, `<script>` or
 * `<style>`.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}
