import { BankCorePool, type BuiltInTestCores } from '@gateway/bank-core-client';
import { createServiceClient, Directory, OtpGuard, type ServiceClient } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { AccountCurrencies } from './account-currency/account-currency';
import { CheckoutService } from './checkout/checkout.service';
import { ConfirmationService } from './confirmation/confirmation.service';
import { AttentionService } from './engine/attention.service';
import { PaymentEngine } from './engine/engine';
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from './engine/engine.settings';
import { MerchantService } from './merchant/merchant.service';
import { SessionService } from './session/session.service';
import { sessionMovements } from './session/session.movement';
import { orderMovements } from './order-movement/order-movement.moves';
import { vrpMovements } from './vrp-movement/vrp-movement.moves';
import { chargeMovements } from './mandate/mandate.moves';
import { MandateService } from './mandate/mandate.service';
import { refundMovements } from './refund/refund.moves';
import { RefundService } from './refund/refund.service';
import { ReportService } from './report/report.service';
import { SettlementRunner } from './settlement/settlement.runner';
import { SettlementService } from './settlement/settlement.service';
import { NetDebitService } from './net-debit/net-debit.service';
import { PayerOtp } from './payer-otp/payer-otp';
import { DEFAULT_SETTLEMENT_SETTINGS, type SettlementSettings } from './settlement/settlement.settings';
import { WebhookDeliveryService } from './webhook/webhook.service';
import { WebhookEndpointService } from './webhook-endpoint/webhook-endpoint.service';
import { EventService } from './event/event.service';
import { DEFAULT_PUBLIC_BASE_URL, DEFAULT_SESSION_TTL_SECONDS, type PaymentsSettings } from './settings';

/** The payments subgraph's services, wired once: resolvers and background jobs share them. */
export interface PaymentsModules {
  /** Calls to other subgraphs through the router, as the payments service (Directory, TPP webhook targets). */
  call: ServiceClient;
  /** Alias and bank routing, cached briefly: a bank's change drops it (service.ts, bank events). */
  directory: Directory;
  engineSettings: EngineSettings;
  settlementSettings: SettlementSettings;
  merchants: MerchantService;
  sessions: SessionService;
  checkout: CheckoutService;
  confirmations: ConfirmationService;
  engine: PaymentEngine;
  attention: AttentionService;
  webhooks: WebhookDeliveryService;
  webhookEndpoints: WebhookEndpointService;
  events: EventService;
  settlementRunner: SettlementRunner;
  settlement: SettlementService;
  /** Net debit caps and positions (the engine reserves on them itself, net-debit.positions.ts). */
  netDebit: NetDebitService;
  mandates: MandateService;
  refunds: RefundService;
  reports: ReportService;
}

/**
 * `testCores`: the built-in test bank (started by the service, which owns its lifecycle), where
 * test objects' core calls go when a bank registered no sandbox core.
 */
export function createPaymentsModules(settings: PaymentsSettings, testCores: BuiltInTestCores): PaymentsModules {
  const logger = settings.logger ?? createLogger('payments');
  const engineSettings: EngineSettings = { ...DEFAULT_ENGINE_SETTINGS, ...settings.engine };
  const call = createServiceClient({
    routerUrl: settings.routerUrl ?? (() => ''),
    platformSecret: settings.platformSecret,
    service: 'payments',
  });
  const directory = new Directory(call, {
    bankMs: engineSettings.bankRoutingCacheMs,
    aliasMs: engineSettings.aliasRoutingCacheMs,
  });
  const cores = new BankCorePool({
    timeoutMs: engineSettings.coreTimeoutMs,
    attempts: engineSettings.coreAttempts,
    budgetMs: engineSettings.coreBudgetMs,
    production: settings.production,
    // A bank's core URLs are reached under the egress policy of webhooks (PRIVATE_TARGETS).
    egress: { privateTargets: settings.webhookPrivateTargets ?? false },
    logger: logger.child({ component: 'bank-core' }),
    metrics: settings.metrics,
    testCores,
  });
  const settlementSettings: SettlementSettings = { ...DEFAULT_SETTLEMENT_SETTINGS, ...settings.settlement };
  const settlementRunner = new SettlementRunner(
    directory,
    cores,
    engineSettings,
    settlementSettings,
    logger.child({ component: 'settlement' }),
  );
  const kinds = {
    session: sessionMovements,
    payment_order: orderMovements,
    mandate_charge: chargeMovements,
    refund: refundMovements,
    vrp_payment: vrpMovements,
  };
  // Every OTP check of a customer, whatever it confirms, counts against the same per-customer limit.
  const otpGuard = new OtpGuard(call, settings.platformSecret, logger.child({ component: 'otp-guard' }));
  // One cache of what accounts are held in, for creations and the engine's pre-debit check alike.
  const currencies = new AccountCurrencies(
    cores,
    {
      cacheMs: engineSettings.accountCurrencyCacheMs,
      unknownMs: engineSettings.accountCurrencyUnknownMs,
      waitMs: engineSettings.accountCurrencyWaitMs,
    },
    logger.child({ component: 'account-currency' }),
  );
  const engine = new PaymentEngine(
    directory,
    cores,
    engineSettings,
    logger.child({ component: 'engine' }),
    kinds,
    currencies,
  );
  const payerOtp = new PayerOtp(directory, cores, otpGuard);
  const sessions = new SessionService(
    {
      production: settings.production,
      webhookPrivateTargets: settings.webhookPrivateTargets ?? false,
      publicBaseUrl: (settings.publicBaseUrl ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, ''),
      sessionTtlSeconds: settings.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS,
    },
    directory,
    currencies,
  );
  const netDebit = new NetDebitService(directory, cores);
  const settlementLogger = logger.child({ component: 'settlement' });
  return {
    call,
    directory,
    engineSettings,
    settlementSettings,
    merchants: new MerchantService(settings),
    sessions,
    checkout: new CheckoutService(
      engine,
      directory,
      payerOtp,
      engineSettings,
      logger.child({ component: 'checkout' }),
      settings.platformSecret,
    ),
    confirmations: new ConfirmationService(logger.child({ component: 'confirmations' }), kinds),
    engine,
    attention: new AttentionService(kinds),
    webhooks: new WebhookDeliveryService(),
    webhookEndpoints: new WebhookEndpointService({
      platformSecret: settings.platformSecret,
      production: settings.production,
      webhookPrivateTargets: settings.webhookPrivateTargets ?? false,
    }),
    events: new EventService(),
    settlementRunner,
    netDebit,
    settlement: new SettlementService(
      settlementRunner,
      settlementSettings,
      engineSettings.leaseMs,
      settlementLogger,
      (em, livemode, requestId) => netDebit.recheckCovers(em, livemode, requestId, settlementLogger),
    ),
    mandates: new MandateService(
      {
        publicBaseUrl: (settings.publicBaseUrl ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, ''),
        platformSecret: settings.platformSecret,
      },
      directory,
      payerOtp,
      engine,
      logger.child({ component: 'mandates' }),
      currencies,
    ),
    refunds: new RefundService(directory, engine, logger.child({ component: 'refunds' })),
    reports: new ReportService(),
  };
}
