/**
 * The openid-client 6 configuration both example scripts use: discovery at `issuer`, and
 * private_key_jwt with the key make-key.mjs wrote (openid-client signs a fresh assertion for every
 * request to a client-authenticated endpoint).
 */
import { readFileSync } from 'node:fs';
import { importJWK } from 'jose';
import * as client from 'openid-client';

export async function configure(issuer, clientId, keyFile) {
  const jwk = JSON.parse(readFileSync(keyFile, 'utf8'));
  const key = await importJWK(jwk, jwk.alg);
  return client.discovery(new URL(issuer), clientId, undefined, client.PrivateKeyJwt({ key, kid: jwk.kid }), {
    // npm start serves plain http on localhost; a deployed issuer is https and needs no such option.
    execute: [client.allowInsecureRequests],
  });
}

/** The four arguments of both scripts, or a usage line and exit code 2. */
export function argumentsOf(script) {
  const [issuer, clientId, keyFile, audience] = process.argv.slice(2);
  if (!issuer || !clientId || !keyFile || !audience) {
    console.error(`usage: node examples/client-auth/${script} <issuer> <client_id> <private-key-file> <audience>`);
    process.exit(2);
  }
  return { issuer, clientId, keyFile, audience };
}
