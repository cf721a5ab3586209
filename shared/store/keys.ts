/**
 * Every key of the single table is built here and nowhere else (DESIGN.md §3.6). The access
 * patterns they serve: docs/data-model.md.
 */
export const keys = {
  revokedToken: (jti: string) => ({ PK: `REVOKED#${jti}`, SK: 'REVOKED' }),
  signingKey: (kid: string) => ({ PK: 'SIGNING_KEYS', SK: `KEY#${kid}` }),
  signingKeysPartition: 'SIGNING_KEYS',
  serviceSecret: (name: string) => ({ PK: 'SERVICE_SECRETS', SK: `SECRET#${name}` }),
} as const;
