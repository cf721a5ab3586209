import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How long one nonce is current; the previous one is still accepted, so a nonce lives 5 to 10 minutes. */
export const DPOP_NONCE_SLICE_SECONDS = 300;

/** Server-provided DPoP nonces (RFC 9449 §8), stateless: no store read or write to issue or check one. */
export interface DpopNonces {
  /** The nonce of the current time slice (sent in `DPoP-Nonce`). */
  current(): Promise<string>;
  /** True for the current slice's nonce and the previous one's; false for anything else. */
  accepts(nonce: string): Promise<boolean>;
}

/**
 * A nonce is `{slice}.{MAC}`: the number of the 300 s time slice and HMAC-SHA256 over it, truncated
 * to 128 bits, under a key derived (RFC 5869 HKDF) from a service secret every container of the
 * stage holds, so any container accepts any container's nonce. Only NQCHAR characters (§8.1).
 * `secret` is read once per container (the service secrets' cache).
 */
export function dpopNonces(secret: () => Promise<Buffer>, now: () => Date): DpopNonces {
  let key: Promise<Buffer> | undefined;
  const macKey = () =>
    (key ??= secret().then((s) => Buffer.from(hkdfSync('sha256', s, Buffer.alloc(0), 'dpop-nonce/v1', 32)))).catch((err) => {
      key = undefined; // a failed read is retried by the next request, not remembered
      throw err;
    });
  const mac = async (slice: number) =>
    createHmac('sha256', await macKey())
      .update(`dpop-nonce.${slice}`)
      .digest()
      .subarray(0, 16);
  const sliceNow = () => Math.floor(now().getTime() / 1000 / DPOP_NONCE_SLICE_SECONDS);

  return {
    async current() {
      const slice = sliceNow();
      return `${slice}.${(await mac(slice)).toString('base64url')}`;
    },
    async accepts(nonce) {
      const m = /^(\d{1,12})\.([A-Za-z0-9_-]{22})$/.exec(nonce);
      if (!m) return false;
      const slice = Number(m[1]);
      const current = sliceNow();
      if (slice !== current && slice !== current - 1) return false;
      return timingSafeEqual(Buffer.from(m[2]!, 'base64url'), await mac(slice));
    },
  };
}
