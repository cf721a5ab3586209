import { isDependencyUnavailable } from '../aws/dependency-failure.ts';
import { isAppError, serviceUnavailable } from '../errors.ts';
import type { KeyStore } from '../keys/key-store.ts';

/**
 * The key store as health sees it (spec 4.4): a token is checked against the keys as usual, but
 * when reading them stalls for more than `waitMs` or fails, against the keys of the last read,
 * however old, so that health can still say `degraded` within its budget while the table does not
 * answer. Only health uses this: it grants nothing and shows only name, version and status. With
 * no earlier read at all there is nothing to check against, and the answer is a 503.
 */
export function lastKnownKeys(keys: KeyStore, waitMs: number): KeyStore {
  return {
    ...keys,
    async publicKey(kid) {
      const read = keys.publicKey(kid);
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<'stalled'>((res) => {
        timer = setTimeout(() => res('stalled'), waitMs);
      });
      try {
        const found = await Promise.race([read, stalled]);
        if (found !== 'stalled') return found;
        read.catch(() => {}); // the read goes on for the next caller; its failure is nobody's here
      } catch (err) {
        if (!isDependencyUnavailable(err) && !(isAppError(err) && err.status === 503)) throw err;
      } finally {
        clearTimeout(timer);
      }
      const known = keys.lastKnownPublicKey(kid);
      if (!known) throw serviceUnavailable({ detail: { dependency: 'dynamodb', keys: 'no earlier read' } });
      return known;
    },
  };
}
