/**
 * `node examples/client-auth/make-key.mjs <private-key-file>`: a new ES256 key pair for a client that
 * authenticates with private_key_jwt (docs/client-authentication.md). Writes the private key as a JWK
 * to the file (readable by you alone) and prints the public key as a JWK Set, ready to be the client's
 * `client_metadata.jwks`. The `kid` is the key's RFC 7638 thumbprint, so each key names itself.
 */
import { writeFileSync } from 'node:fs';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node examples/client-auth/make-key.mjs <private-key-file>');
  process.exit(2);
}
const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
const pub = await exportJWK(publicKey);
const kid = await calculateJwkThumbprint(pub);
writeFileSync(file, JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'ES256' }), { mode: 0o600 });
console.log(JSON.stringify({ keys: [{ ...pub, kid, alg: 'ES256', use: 'sig' }] }));
