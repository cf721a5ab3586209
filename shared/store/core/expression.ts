/**
 * Placeholders for DynamoDB expressions. Every attribute name goes through `#n` placeholders
 * (ids contain `-`, names may be reserved words) and every value through `:v` placeholders, so
 * conditions from several writes merged into one transaction item can never collide.
 */
export class Expr {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly byName = new Map<string, string>();
  private valueCount = 0;

  /** `'version'` or a document path `['aggregations', 'clients']` → `#n0` / `#n1.#n2`. */
  name(path: string | readonly string[]): string {
    const parts = typeof path === 'string' ? [path] : path;
    return parts
      .map((p) => {
        let ph = this.byName.get(p);
        if (!ph) {
          ph = `#n${this.byName.size}`;
          this.byName.set(p, ph);
          this.names[ph] = p;
        }
        return ph;
      })
      .join('.');
  }

  value(v: unknown): string {
    const ph = `:v${this.valueCount++}`;
    this.values[ph] = v;
    return ph;
  }

  /** The `ExpressionAttributeNames`/`Values` members, omitting empty ones (DynamoDB rejects `{}`). */
  attributes(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      ...(Object.keys(this.names).length ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}

/** A condition written against an `Expr`, so it can be combined with others in one item. */
export type Condition = (x: Expr) => string;

export const exists: Condition = (x) => `attribute_exists(${x.name('PK')})`;
export const notExists: Condition = (x) => `attribute_not_exists(${x.name('PK')})`;
export const equals =
  (path: string | readonly string[], value: unknown): Condition =>
  (x) =>
    `${x.name(path)} = ${x.value(value)}`;
export const and =
  (...cs: Condition[]): Condition =>
  (x) =>
    cs.map((c) => `(${c(x)})`).join(' AND ');
