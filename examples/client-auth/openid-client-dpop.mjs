/**
 * `node examples/client-auth/openid-client-dpop.mjs <issuer> <client_id> <private-key-file> <audience>`:
 * a DPoP-bound token (RFC 9449) with openid-client 6 for a key pair made here, then introspection of
 * it, which names the key the token is bound to (`cnf.jkt`, RFC 9449 §6.2). The client authenticates
 * with private_key_jwt as in openid-client.mjs.
 */
import { calculateJwkThumbprint, exportJWK } from 'jose';
import * as client from 'openid-client';
import { argumentsOf, configure } from './configure.mjs';

const { issuer, clientId, keyFile, audience } = argumentsOf('openid-client-dpop.mjs');
const config = await configure(issuer, clientId, keyFile);

// Every request carries a proof signed by this key pair; openid-client answers the server's
// use_dpop_nonce by itself (RFC 9449 §8).
const dpopKeys = await client.randomDPoPKeyPair('ES256');
const DPoP = client.getDPoPHandle(config, dpopKeys);
const token = await client.clientCredentialsGrant(config, { audience }, { DPoP });
console.log(JSON.stringify({ token_type: token.token_type, scope: token.scope }));

const info = await client.tokenIntrospection(config, token.access_token);
const jkt = await calculateJwkThumbprint(await exportJWK(dpopKeys.publicKey));
console.log(JSON.stringify({ active: info.active, token_type: info.token_type, cnf_is_my_dpop_key: info.cnf?.jkt === jkt }));
