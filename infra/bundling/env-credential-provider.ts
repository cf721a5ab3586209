/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias in
 * `BUNDLING`, infra/constructs/service-function.ts): every SDK client's default credential
 * provider becomes the SDK's own environment provider. Lambda always gives a function its role's
 * credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, so the rest
 * of the default chain (SSO, INI files, process, web identity, ECS and EC2 metadata, and the STS,
 * SSO and sign-in clients they carry) can never answer there: it only cost the token bundle about
 * 135 KB and its load time (docs/benchmarks.md "Token function bundle"). Tests and `npm start` run
 * the sources, not the bundles, and keep the full chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The default chain's signature: called by each client with its init options, returns the provider. */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
