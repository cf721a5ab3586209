/**
 * A provider's ID token is a few KB (an RSA signature is 342 characters); 16 KB bounds parsing.
 * Its own module so the token endpoint's parameter schema can bound `subject_token` without
 * loading the ID-token verification (and jose's `jwtVerify`) at every cold start
 * (docs/benchmarks.md "Token function bundle, token exchange").
 */
export const MAX_ID_TOKEN_LENGTH = 16 * 1024;
