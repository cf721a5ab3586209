import { userinfoHandler } from '#shared/oauth/userinfo/userinfo-handler.ts';
import { oauthDeps } from '#shared/wiring/oauth.ts';

/** GET and POST /userinfo: OIDC Core §5.3 UserInfo (spec 4.2 Get user info, docs/contract.md §7.1). */
export const handler = userinfoHandler(oauthDeps);
