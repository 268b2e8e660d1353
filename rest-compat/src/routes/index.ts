import type { RestRoute } from '../route';
import { accountRoutes } from './accounts';
import { adminKeyRoutes } from './admin-keys';
import { attentionRoutes } from './attention';
import { auditRoutes } from './audit';
import { bankRoutes } from './banks';
import { callbackRoutes } from './callbacks';
import { checkoutRoutes } from './checkout';
import { consentRevocationRoutes } from './consent-revocation';
import { credentialContainmentRoutes } from './credential-containment';
import { consentAuthorisationRoutes } from './consent-authorisation';
import { consentRoutes } from './consents';
import { customerConsentRoutes } from './customer-consents';
import { identityRoutes } from './identity';
import { mandateRoutes } from './mandates';
import { merchantRoutes } from './merchants';
import { paymentRoutes } from './payments';
import { paymentOrderRoutes } from './payment-orders';
import { pushedAuthorizationRoutes } from './par';
import { refundRoutes } from './refunds';
import { registrationRoutes } from './registration';
import { reportRoutes } from './reports';
import { scaRoutes } from './sca';
import { tokenRoutes } from './token';
import { settlementRoutes } from './settlement';
import { netDebitCapRoutes } from './net-debit-caps';
import { suspensionRoutes } from './suspension';
import { tppRoutes } from './tpps';
import { webhookRoutes } from './webhooks';
import { webhookEndpointRoutes } from './webhook-endpoints';
import { eventRoutes } from './events';
import { fundsConfirmationRoutes } from './funds-confirmation';
import { vrpRoutes } from './vrp';

/** Every REST path rest-compat serves: the source of the handlers and of /openapi.json. */
export const ROUTES: readonly RestRoute[] = [
  ...bankRoutes,
  ...merchantRoutes,
  ...tppRoutes,
  ...consentRoutes,
  ...tokenRoutes,
  ...pushedAuthorizationRoutes,
  ...registrationRoutes,
  ...consentRevocationRoutes,
  ...accountRoutes,
  ...fundsConfirmationRoutes,
  ...vrpRoutes,
  ...paymentOrderRoutes,
  ...scaRoutes,
  ...consentAuthorisationRoutes,
  ...customerConsentRoutes,
  ...identityRoutes,
  ...paymentRoutes,
  ...refundRoutes,
  ...reportRoutes,
  ...checkoutRoutes,
  ...mandateRoutes,
  ...callbackRoutes,
  ...webhookRoutes,
  ...webhookEndpointRoutes,
  ...eventRoutes,
  ...attentionRoutes,
  ...auditRoutes,
  ...settlementRoutes,
  ...netDebitCapRoutes,
  ...adminKeyRoutes,
  ...credentialContainmentRoutes,
  ...suspensionRoutes,
];
