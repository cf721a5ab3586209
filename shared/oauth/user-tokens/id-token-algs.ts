import type { Config } from '../../config.ts';
import { ID_TOKEN_SIGNING_ALGS, type IdTokenSigningAlg } from '../../records/client-record.ts';

/**
 * The ID token algorithms this stage can sign with, the default first: both in the envelope and
 * local key modes; ES256 alone in kms-sign mode, whose one key is an ES256 KMS key (docs/keys.md
 * "Modes"). Discovery's `id_token_signing_alg_values_supported` is this list.
 */
export const idTokenAlgsOf = (keyMode: Config['keyMode']): readonly IdTokenSigningAlg[] =>
  keyMode === 'kms-sign' ? ['ES256'] : ID_TOKEN_SIGNING_ALGS;

/**
 * The algorithm of a client's ID tokens: its `id_token_signed_response_alg` (RS256 when unset,
 * OIDC Registration §2) when the stage can sign with it, else the stage's own first one, so that a
 * kms-sign stage keeps issuing the ES256 ID tokens its clients had rather than failing every login
 * (docs/client-authentication.md "ID token signing algorithm").
 */
export const idTokenAlgFor = (wanted: IdTokenSigningAlg, available: readonly IdTokenSigningAlg[]): IdTokenSigningAlg =>
  available.includes(wanted) ? wanted : available[0]!;
