/**
 * The dependencies of `/authorize`, `/authorize/resume`, `/par` and `/device_code` (functions/oauth/): the
 * token path's, plus the sessions, interactions, User Grants, pushed requests and device codes they write.
 */
import type { AuthorizeDeps } from '../oauth/authorize/authorize-deps.ts';
import type { DeviceAuthorizationDeps } from '../oauth/device/device-authorization.ts';
import type { Runtime } from '../runtime.ts';
import { resourcesRepository } from '../store/resources/resources-repository.ts';
import { consentsRepository } from '../store/sessions/consents-repository.ts';
import { deviceCodesRepository } from '../store/sessions/device-codes-repository.ts';
import { interactionsRepository } from '../store/sessions/interactions-repository.ts';
import { pushedRequestsRepository } from '../store/sessions/pushed-requests-repository.ts';
import { sessionsRepository } from '../store/sessions/sessions-repository.ts';
import { federatedLoginDeps } from './federated-login.ts';
import { perRuntime } from './per-runtime.ts';
import { oauthDeps } from './token-path/token-path-records.ts';

/** Built once per runtime (per container in Lambda, per local stack locally). */
export const authorizeDeps = /* @__PURE__ */ perRuntime((runtime: Runtime): AuthorizeDeps => {
  const { db, config, now, secretBox } = runtime;
  const table = config.tableName;
  const oauth = oauthDeps(runtime);
  const resources = resourcesRepository(db, table, now, secretBox);
  return {
    oauth,
    sessions: sessionsRepository(db, table, now),
    interactions: interactionsRepository(db, table, now),
    consents: consentsRepository(db, table, now, oauth.refreshTokens),
    codes: oauth.authorizationCodes,
    pushedRequests: pushedRequestsRepository(db, table, now),
    getResource: (id) => resources.get(id),
    federation: federatedLoginDeps(runtime),
  };
});

/**
 * `/device_code`'s dependencies, built once per runtime: the OAuth ones, with the device codes
 * repository that creates authorizations (the token path's OAuth dependencies only poll them).
 */
export const deviceAuthorizationDeps = /* @__PURE__ */ perRuntime(
  (runtime: Runtime): DeviceAuthorizationDeps => ({
    ...oauthDeps(runtime),
    deviceCodes: deviceCodesRepository(runtime.db, runtime.config.tableName, runtime.now),
  }),
);
