import { introspectionHandler } from '../../shared/oauth/introspection-handler.ts';
import { tokeninfoView } from '../../shared/oauth/introspection-views.ts';

/** POST /tokeninfo: the spec's introspection (2.11), ISO timestamps and `subject`. */
export const handler = introspectionHandler(tokeninfoView);
