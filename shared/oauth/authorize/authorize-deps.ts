import type { Runtime } from '../../runtime.ts';
import type { AuthorizationCodesRepository } from '../../store/authorization-codes-repository.ts';
import { resourcesRepository } from '../../store/resources-repository.ts';
import { oauthDeps } from '../../store/token-path-records.ts';
import type { OAuthDeps } from '../oauth-deps.ts';
import type { BrowserStores } from './browser-stores.ts';
import { interimBrowserStores } from './interim-browser-stores.ts';

/** What `/authorize` and `/authorize/resume` use (DESIGN.md §3.2: dependencies as arguments). */
export interface AuthorizeDeps {
  oauth: OAuthDeps;
  browser: BrowserStores;
  codes: AuthorizationCodesRepository;
  /** `resource_metadata.skip_consent_for_first_party` of a Resource (API.md §7.4), by id. */
  skipsConsentForFirstParty(resourceId: string): Promise<boolean>;
}

export function authorizeDeps(runtime: Runtime): AuthorizeDeps {
  const { db, config, now, secretBox } = runtime;
  const resources = resourcesRepository(db, config.tableName, now, secretBox);
  return {
    oauth: oauthDeps(runtime),
    browser: interimBrowserStores(db, config.tableName, now),
    codes: oauthDeps(runtime).authorizationCodes,
    async skipsConsentForFirstParty(resourceId) {
      return (await resources.get(resourceId))?.resource_metadata.skip_consent_for_first_party ?? false;
    },
  };
}
