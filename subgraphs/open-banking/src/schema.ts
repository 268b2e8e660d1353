import { buildFederatedSchema, type SubgraphContext } from '@gateway/federation';
import type { GraphQLSchema } from 'graphql';
import { createAccountResolvers } from './account/account.resolver';
import { createAuthorisationResolver } from './authorisation/authorisation.resolver';
import { createCustomerConsentsResolver } from './authorisation/customer-consents.resolver';
import { ConsentEntity } from './consent/consent.entity';
import { ConsentUpdatesResolver } from './consent/consent-updates.resolver';
import { createConsentResolver } from './consent/consent.resolver';
import { createRevocationResolver } from './consent/revocation.resolver';
import { toConsent } from './consent/consent.type';
import { createAuthorizationServerResolver } from './grant/authorization-server.resolver';
import { createTokenResolver } from './grant/token.resolver';
import { createPushedAuthorizationResolver } from './par/par.resolver';
import { createRegistrationResolver } from './registration/registration.resolver';
import { NO_TEST_CORES } from '@gateway/bank-core-client';
import { createOpenBankingModules, type OpenBankingModules } from './modules';
import type { OpenBankingSettings } from './settings';
import { TppEntity } from './tpp/tpp.entity';
import { createTppResolver } from './tpp/tpp.resolver';
import { TppDirectoryResolver } from './tpp/tpp-directory.resolver';
import { createTppTokenResolver } from './tpp/tpp-token.resolver';
import { createTppSuspensionResolver } from './tpp/tpp-suspension.resolver';
import { createPaymentOrderResolver } from './payment-order/payment-order.resolver';
import { PaymentOrderUpdatesResolver } from './payment-order/payment-order-updates.resolver';
import { createScaResolver } from './payment-order/sca.resolver';
import { toTpp } from './tpp/tpp.type';
import { createFundsConfirmationResolver } from './funds-confirmation/funds-confirmation.resolver';
import { createVrpResolver } from './vrp/vrp.resolver';
import { TppConsentCountResolver } from './consent/tpp-consent-count.resolver';

export async function buildOpenBankingSchema(
  settings: OpenBankingSettings,
  modules: OpenBankingModules = createOpenBankingModules(settings, NO_TEST_CORES),
): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [
      createTppResolver(modules.tpps),
      TppDirectoryResolver,
      TppConsentCountResolver,
      createTppTokenResolver(),
      createTppSuspensionResolver(modules.tpps),
      createConsentResolver(modules.consents),
      ConsentUpdatesResolver,
      createRevocationResolver(modules.consents),
      createAuthorisationResolver(modules.authorisation),
      createCustomerConsentsResolver(modules.customerConsents),
      ...createAccountResolvers(modules.accounts, settings.maxCoreCallsPerRequest),
      createTokenResolver(modules.tokens),
      createPushedAuthorizationResolver(modules.pushedRequests),
      createPaymentOrderResolver(modules.paymentOrders),
      createScaResolver(modules.sca),
      createFundsConfirmationResolver(modules.fundsConfirmations),
      createVrpResolver(modules.vrpConsents, modules.vrpPayments),
      PaymentOrderUpdatesResolver,
      createRegistrationResolver(modules.registrations, modules.consents.settings.publicBaseUrl),
      // The issuer is the consents' public base: the one the approval's `iss` names.
      createAuthorizationServerResolver(modules.consents.settings.publicBaseUrl, modules.registrations.enabled),
    ],
    referenceResolvers: {
      // Another subgraph's reference to a TPP it knows only by id; null for an unknown one.
      // webhookUrl stays behind TppResolver's check whoever asks.
      Tpp: async (reference, context: SubgraphContext) => {
        const tpp = await context.em.findOne(TppEntity, { id: reference.id as string });
        return tpp ? toTpp(tpp) : null;
      },
      // A consent is its TPP's (or its own access token's) to see: anyone else gets null.
      Consent: async (reference, context: SubgraphContext) => {
        const consent = await context.em.findOne(ConsentEntity, { id: reference.id as string });
        const { principal } = context;
        const allowed =
          consent &&
          ((principal.kind === 'tpp' && principal.id === consent.tppId) ||
            (principal.kind === 'ob_token' && principal.consentId === consent.id));
        return allowed ? toConsent(consent, modules.consents.settings.publicBaseUrl) : null;
      },
    },
  });
}
