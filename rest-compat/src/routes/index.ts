import type { RestRoute } from '../route';
import { attentionRoutes } from './attention';
import { bankRoutes } from './banks';
import { callbackRoutes } from './callbacks';
import { checkoutRoutes } from './checkout';
import { consentRoutes } from './consents';
import { identityRoutes } from './identity';
import { merchantRoutes } from './merchants';
import { paymentRoutes } from './payments';
import { settlementRoutes } from './settlement';
import { tppRoutes } from './tpps';
import { webhookRoutes } from './webhooks';

/** Every REST path rest-compat serves: the source of the handlers and of /openapi.json. */
export const ROUTES: readonly RestRoute[] = [
  ...bankRoutes,
  ...merchantRoutes,
  ...tppRoutes,
  ...consentRoutes,
  ...identityRoutes,
  ...paymentRoutes,
  ...checkoutRoutes,
  ...callbackRoutes,
  ...webhookRoutes,
  ...attentionRoutes,
  ...settlementRoutes,
];
