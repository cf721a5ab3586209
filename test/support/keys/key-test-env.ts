import { createLocalJWKSet, type JWTVerifyResult, jwtVerify } from 'jose';
import { type Config, loadConfig } from '#shared/config.ts';
import type { KeyStore } from '#shared/keys/key-store.ts';
import type { TestTable } from '../service/dynamodb.ts';
import { KMS_KEY_ARN } from './fake-kms.ts';

export const ISSUER = 'https://id.example.test';

/** A settable clock (jose's `currentDate` idea): tests move time instead of waiting. */
export function testClock(start = new Date('2026-03-01T10:00:00.000Z')) {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance: (seconds: number) => {
      t += seconds * 1000;
    },
  };
}

export function envelopeConfig(table: TestTable, env: Record<string, string> = {}): Config {
  return loadConfig({
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    AWS_REGION: 'eu-west-1',
    ISSUER,
    KEY_MODE: 'envelope',
    KMS_KEY_ID: KMS_KEY_ARN,
    ...env,
  });
}

export function localConfig(table: TestTable, masterKeyFile: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    AWS_REGION: 'local',
    ISSUER,
    KEY_MODE: 'local',
    LOCAL_MASTER_KEY_FILE: masterKeyFile,
    ...env,
  });
}

/** Verifies like a relying party: jose against the JWK Set the service publishes. */
export async function verifyWithJwks(token: string, keys: KeyStore, now: Date, algorithms = ['ES256', 'RS256']): Promise<JWTVerifyResult> {
  const jwks = createLocalJWKSet({ keys: (await keys.publishedKeys()).map((k) => k.jwk) });
  return jwtVerify(token, jwks, { issuer: ISSUER, currentDate: now, algorithms });
}

export const claims = (now: Date, extra: Record<string, unknown> = {}) => {
  const iat = Math.floor(now.getTime() / 1000);
  return { iss: ISSUER, sub: 'client-1', aud: 'https://api.example.test', iat, exp: iat + 3600, jti: `j-${Math.random()}`, ...extra };
};
