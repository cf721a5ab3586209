import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, csrfIn, type PagesFixture, pagesFixture } from '../support/browser/pages-fixture.ts';

/**
 * The hosted login page's lockout (docs/contract.md §7.3, docs/users.md "Brute force") for a username that
 * names no user: the same pages as for an existing user, attempt after attempt (ten 400 forms
 * "The username or password is not correct.", then the 429 form with `Retry-After`).
 */
let fx: PagesFixture;
let clientId: string;

beforeAll(async () => {
  fx = await pagesFixture();
  clientId = (await fx.createClient({ client_name: 'Lockout Checker' })).id;
});
afterAll(async () => {
  await fx?.stop();
});

/** Eleven attempts in one browser: ten wrong passwords, then `last`; each reply as a browser sees it. */
async function attempts(username: string, last: string) {
  const { id } = await fx.interaction(clientId);
  const jar = new CookieJar(fx.url);
  const path = `/login?interaction=${id}`;
  const out = [];
  for (let i = 0; i < 11; i++) {
    const form = await jar.get(path);
    const res = await jar.post(path, { csrf_token: csrfIn(form.text), username, password: i < 10 ? 'wrong-password-123' : last });
    const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date' && name !== 'retry-after'));
    out.push({
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      headers,
      // What differs by design: the username typed (shown back), the forms' CSRF tokens, and the
      // passkey sign-in's challenge and state (random on every page).
      page: res.text
        .replaceAll(username, '{username}')
        .replace(/name="csrf_token" value="[^"]+"/g, 'name="csrf_token" value=""')
        .replace(/name="state" value="[^"]+"/g, 'name="state" value=""')
        .replace(/&quot;challenge&quot;:&quot;[^&]+&quot;/g, '&quot;challenge&quot;:&quot;&quot;'),
      signedIn: jar.cookies.has('session'),
    });
  }
  return out;
}

describe('/login lockout for a username that names no user', () => {
  it('ten 400 forms, then the same 429 form with Retry-After as an existing user gets, even with the right password', async () => {
    const user = await fx.createLoginUser();
    // As long as the username, so the pages (and their Content-Length) differ only by the name shown.
    const ghost = `ghost_${Math.random().toString(36).slice(2)}${'x'.repeat(40)}`.slice(0, user.username.length);
    const unknown = await attempts(ghost, 'whatever-password-1');
    const known = await attempts(user.username, user.password);
    expect(known.map((a) => a.status)).toEqual([...Array(10).fill(400), 429]);
    expect(known[10]!.page).toContain('Too many failed attempts. Try again in 15 minutes.');
    expect(known.some((a) => a.signedIn)).toBe(false);
    expect(Number(known[10]!.retryAfter)).toBeGreaterThan(890);
    expect(unknown.map(({ retryAfter: _, ...a }) => a)).toEqual(known.map(({ retryAfter: _, ...a }) => a));
    expect(Math.abs(Number(unknown[10]!.retryAfter) - Number(known[10]!.retryAfter))).toBeLessThanOrEqual(1);
    // 22 login forms, each an argon2id hash: several seconds on a loaded 2-core machine. A bound, not a timing.
  }, 120_000);
});
