import { buildFederatedSchema, type SubgraphContext } from '@gateway/federation';
import type { GraphQLSchema } from 'graphql';
import { createCheckoutResolver } from './checkout/checkout.resolver';
import { createConfirmationResolver } from './confirmation/confirmation.resolver';
import { createAttentionResolver } from './engine/attention.resolver';
import { DashboardSessionResolver } from './merchant/dashboard-session.resolver';
import { MerchantEntity } from './merchant/merchant.entity';
import { createMerchantResolver } from './merchant/merchant.resolver';
import { createMerchantSuspensionResolver } from './merchant/merchant-suspension.resolver';
import { MerchantDirectoryResolver } from './merchant/merchant-directory.resolver';
import { MerchantImpactResolver } from './merchant/merchant-impact.resolver';
import { MandateEntity } from './mandate/mandate.entity';
import { createMandateResolver } from './mandate/mandate.resolver';
import { createRefundResolver } from './refund/refund.resolver';
import { createReportResolver } from './report/report.resolver';
import { toMandate } from './mandate/mandate.type';
import { toMerchant } from './merchant/merchant.type';
import { NO_TEST_CORES } from '@gateway/bank-core-client';
import { createPaymentsModules, type PaymentsModules } from './modules';
import { PaymentSessionEntity } from './session/session.entity';
import { SessionHistoryResolver } from './session/session.history';
import { createSessionResolver } from './session/session.resolver';
import { toPaymentSession } from './session/session.type';
import { createSettlementResolver } from './settlement/settlement.resolver';
import { createBankPositionsResolver, createNetDebitResolver } from './net-debit/net-debit.resolver';
import { BankPositionsUpdatesResolver } from './subscription/bank-positions-updates.resolver';
import { SessionUpdatesResolver } from './subscription/session-updates.resolver';
import { SettlementCyclesUpdatesResolver } from './subscription/settlement-cycles-updates.resolver';
import { createWebhookResolver } from './webhook/webhook.resolver';
import { createWebhookEndpointResolver } from './webhook-endpoint/webhook-endpoint.resolver';
import { createEventResolver } from './event/event.resolver';
import type { PaymentsSettings } from './settings';

export async function buildPaymentsSchema(
  settings: PaymentsSettings,
  modules: PaymentsModules = createPaymentsModules(settings, NO_TEST_CORES),
): Promise<GraphQLSchema> {
  return buildFederatedSchema({
    resolvers: [
      createMerchantResolver(modules.merchants),
      createMerchantSuspensionResolver(modules.merchants),
      DashboardSessionResolver,
      MerchantDirectoryResolver,
      MerchantImpactResolver,
      createSessionResolver(modules.sessions),
      SessionHistoryResolver,
      createCheckoutResolver(modules.checkout),
      createConfirmationResolver(modules.confirmations),
      createWebhookResolver(modules.webhooks),
      createWebhookEndpointResolver(modules.webhookEndpoints, modules.call),
      createEventResolver(modules.events, modules.call),
      createAttentionResolver(modules.attention),
      createSettlementResolver(modules.settlement),
      createNetDebitResolver(modules.netDebit),
      createBankPositionsResolver(modules.netDebit),
      createMandateResolver(modules.mandates),
      createRefundResolver(modules.refunds),
      createReportResolver(modules.reports),
      SessionUpdatesResolver,
      BankPositionsUpdatesResolver,
      SettlementCyclesUpdatesResolver,
    ],
    referenceResolvers: {
      // Another subgraph's reference to a merchant it knows only by id; null for an unknown one.
      // webhookUrl and settlementIban stay behind MerchantResolver's checks whoever asks.
      Merchant: async (reference, context: SubgraphContext) => {
        const merchant = await context.em.findOne(MerchantEntity, { id: reference.id as string });
        return merchant ? toMerchant(merchant) : null;
      },
      // A session is its merchant's (or an operator's, or its payer's) to see: anyone else gets null.
      PaymentSession: async (reference, context: SubgraphContext) => {
        const session = await context.em.findOne(PaymentSessionEntity, { id: reference.id as string });
        const { principal } = context;
        const allowed =
          session &&
          (principal.kind === 'admin' ||
            (principal.kind === 'merchant' && principal.id === session.merchantId) ||
            (principal.kind === 'session' && principal.id === session.id));
        return allowed ? toPaymentSession(session) : null;
      },
      // A mandate is its merchant's (or an operator's) to see: anyone else gets null.
      Mandate: async (reference, context: SubgraphContext) => {
        const mandate = await context.em.findOne(MandateEntity, { id: reference.id as string });
        const { principal } = context;
        const allowed =
          mandate &&
          (principal.kind === 'admin' || (principal.kind === 'merchant' && principal.id === mandate.merchantId));
        return allowed ? toMandate(mandate) : null;
      },
    },
  });
}
