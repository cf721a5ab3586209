/**
 * DPoP proof algorithms (RFC 9449 §4.3 item 5 "an asymmetric digital signature algorithm"): the
 * one the client libraries we test with generate by default (ES256) and the usual others. Never
 * `none`, never HMAC: a MAC over a key that travels in the header proves nothing. A module of its
 * own so that discovery lists them without loading the proof checks.
 */
export const DPOP_ALGS = ['ES256', 'ES384', 'EdDSA', 'PS256', 'RS256'] as const;
