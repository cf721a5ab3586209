import { AppError } from '../../errors.ts';
import { DPOP_ALGS } from './dpop-algs.ts';

/** RFC 9449 §6.1: the `cnf.jkt` of a DPoP-bound token's claims, or undefined for a Bearer token. */
export function boundKey(claims: object): string | undefined {
  const jkt = ((claims as { cnf?: unknown }).cnf as { jkt?: unknown } | undefined)?.jkt;
  return typeof jkt === 'string' ? jkt : undefined;
}

/**
 * RFC 9449 §7.1: a refusal with the `DPoP` challenge and the proof algorithms we accept. Messages
 * are ours (never the token or the proof).
 */
export const dpopChallenge = (code: 'invalid_token' | 'invalid_dpop_proof', message: string) =>
  new AppError(401, code, message, {
    headers: { 'WWW-Authenticate': `DPoP error="${code}", error_description="${message}", algs="${DPOP_ALGS.join(' ')}"` },
  });

/**
 * Where we take Bearer tokens only (the management API, health, introspection's bearer caller): a
 * bound token is refused, never honoured without its proof (§7.2). Kept apart from the proof
 * checks, so these functions load no more code than this.
 */
export function refuseBoundBearer(claims: object, where: string): void {
  if (boundKey(claims) !== undefined) {
    throw dpopChallenge('invalid_token', `The access token is DPoP-bound: ${where} accepts Bearer tokens only.`);
  }
}
