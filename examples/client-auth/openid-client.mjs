/**
 * `node examples/client-auth/openid-client.mjs <issuer> <client_id> <private-key-file> <audience>`: the
 * walk-through's client with openid-client 6 (docs/client-authentication.md "Walk-through"): a
 * client_credentials token, the client authenticated with private_key_jwt.
 */
import * as client from 'openid-client';
import { argumentsOf, configure } from './configure.mjs';

const { issuer, clientId, keyFile, audience } = argumentsOf('openid-client.mjs');
const config = await configure(issuer, clientId, keyFile);
const token = await client.clientCredentialsGrant(config, { audience });
console.log(JSON.stringify({ token_type: token.token_type, scope: token.scope, expires_in: token.expires_in }));
