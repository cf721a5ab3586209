import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAppError } from '#shared/errors.ts';
import { arraySource } from '#shared/lists/collection-source.ts';
import { clientsCollection as spec } from '#shared/lists/collections/clients.ts';
import { listCollection } from '#shared/lists/list-collection.ts';
import { parseListParams } from '#shared/lists/parse-list-params.ts';
import { makeClients } from '../support/store/list-fixtures.ts';

const NAMES = ['offset', 'limit', 'fields', 'expand', 'q', 'sort', 'total_count', 'cursor'];
const ATTRS = [...spec.attributes.keys(), 'nope', 'resources'];
// Values built from the grammar's own pieces find more edge cases than random text alone.
const piece = fc.oneof(
  fc.string(),
  fc.constantFrom('(', ')', '=', '"', '\\', ' and ', 'AND', '+', ',', ':', 'asc', 'desc', 'true', 'null', '2025-03-01', '-1', '100', '0'),
  fc.constantFrom(...ATTRS),
);
const value = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
const query = fc.dictionary(fc.constantFrom(...NAMES), fc.oneof(value, fc.array(value, { minLength: 2, maxLength: 3 })));

const clients = makeClients(23);

// docs/design.md §3.12: whatever the query string, a 4xx with a message naming a parameter, never a 500.
describe('list parameters under fuzzing', () => {
  it('parse: a result or a 400 naming the parameter', () => {
    fc.assert(
      fc.property(query, (q) => {
        try {
          parseListParams(spec, q as Record<string, string>);
        } catch (e) {
          expect(isAppError(e) && e.status === 400 && /^query\.[a-z_]+: /.test(e.message)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('whatever parses also lists without a 5xx', async () => {
    const key = Buffer.alloc(32, 7);
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        let params;
        try {
          params = parseListParams(spec, q as Record<string, string>);
        } catch {
          return;
        }
        try {
          const page = await listCollection({ spec, source: arraySource('t', clients), params, cursorKey: key });
          expect(page.count).toBe(page.items.length);
        } catch (e) {
          expect(isAppError(e) && e.status === 400).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
