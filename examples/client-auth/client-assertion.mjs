/**
 * `node examples/client-auth/client-assertion.mjs <client_id> <audience> <private-key-file>`: prints a
 * client assertion (RFC 7523 §3, OIDC Core §9 private_key_jwt) signed with the key make-key.mjs wrote:
 * `iss` and `sub` are the client, `aud` the authorization server's issuer (or the endpoint's URL),
 * valid for 60 seconds, with a fresh `jti`. The server takes each `jti` once: sign one per request.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { importJWK, SignJWT } from 'jose';

const [clientId, audience, file] = process.argv.slice(2);
if (!clientId || !audience || !file) {
  console.error('usage: node examples/client-auth/client-assertion.mjs <client_id> <audience> <private-key-file>');
  process.exit(2);
}
const jwk = JSON.parse(readFileSync(file, 'utf8'));
const assertion = await new SignJWT({})
  .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid })
  .setIssuer(clientId)
  .setSubject(clientId)
  .setAudience(audience)
  .setIssuedAt()
  .setExpirationTime('60s')
  .setJti(randomUUID())
  .sign(await importJWK(jwk, jwk.alg));
console.log(assertion);
