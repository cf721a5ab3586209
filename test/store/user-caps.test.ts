import { describe, expect, it } from 'vitest';
import { cappedEntry, pushOut } from '#shared/store/users/user-caps.ts';

/** The list arithmetic of the per-user caps (shared/store/users/user-caps.ts, docs/security.md "Caps"). */
describe('pushOut: a new entry on a list at the cap', () => {
  const now = 1_000_000;
  it('pushes out the oldest live entries only, keeps the order, appends the new one', () => {
    const seen = [cappedEntry('a', 0), cappedEntry('b', now + 10), cappedEntry('c', 0)];
    expect(pushOut(seen, cappedEntry('d', 0), 3, now)).toEqual({
      kept: [cappedEntry('b', now + 10), cappedEntry('c', 0), cappedEntry('d', 0)],
      ended: ['a'],
    });
  });

  it('drops expired entries without ending them, so no live one goes while an expired one is listed', () => {
    const seen = [cappedEntry('a', 0), cappedEntry('old', now - 1), cappedEntry('c', now)];
    expect(pushOut(seen, cappedEntry('d', 0), 3, now)).toEqual({ kept: [cappedEntry('a', 0), cappedEntry('d', 0)], ended: [] });
  });

  it('a cap lowered a long way shrinks the list by at most 25 ends per transaction; the new entry is never ended', () => {
    const seen = Array.from({ length: 60 }, (_, i) => cappedEntry(`f${i}`, 0));
    const { kept, ended } = pushOut([...seen, cappedEntry('new', 0)], cappedEntry('new', 0), 10, now);
    expect(ended).toEqual(Array.from({ length: 25 }, (_, i) => `f${i}`));
    expect(kept).toHaveLength(36);
    expect(kept.at(-1)).toBe(cappedEntry('new', 0));
    expect(kept.filter((e) => e.endsWith('.new'))).toHaveLength(1);
  });
});
