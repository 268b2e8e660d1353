import type { RestRoute } from '../route';
import { bankRoutes } from './banks';
import { identityRoutes } from './identity';
import { merchantRoutes } from './merchants';
import { tppRoutes } from './tpps';

/** Every REST path rest-compat serves: the source of the handlers and of /openapi.json. */
export const ROUTES: readonly RestRoute[] = [...bankRoutes, ...merchantRoutes, ...tppRoutes, ...identityRoutes];
