import { oauthError } from '../errors.ts';

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), space-delimited. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export function parseScope(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  const tokens = scope.split(' ').filter((s) => s.length > 0);
  for (const [i, t] of tokens.entries()) {
    // docs/contract.md §8: the token is named by its place (1-based), never quoted.
    if (!SCOPE_TOKEN.test(t)) throw oauthError(400, 'invalid_scope', `body.scope: token ${i + 1} is not a valid scope token.`);
  }
  return [...new Set(tokens)];
}
