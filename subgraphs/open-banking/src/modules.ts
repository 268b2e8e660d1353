import { BankCorePool, type BuiltInTestCores } from '@gateway/bank-core-client';
import { createServiceClient, Directory, OtpGuard } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { AccountService } from './account/account.service';
import { AuthorisationService } from './authorisation/authorisation.service';
import { CustomerAccountsClient } from './authorisation/customer-accounts';
import { CustomerConsentsService } from './authorisation/customer-consents.service';
import { BankCapabilitiesClient } from './banks/bank-capabilities';
import { ConsentService } from './consent/consent.service';
import { TokenService } from './grant/token.service';
import {
  DEFAULT_CORE_CALL_SETTINGS,
  DEFAULT_PUBLIC_BASE_URL,
  ROUTING_CACHE,
  type OpenBankingSettings,
} from './settings';
import { TppService } from './tpp/tpp.service';
import { RegistrationService } from './registration/registration.service';
import { audienceOf, ClientAuthenticator } from './client-auth/client-authentication';
import { TokenEndpointProofs } from './client-auth/token-endpoint-proofs';
import { PushedAuthorizationService } from './par/par.service';
import { DpopNonces } from '@gateway/vault';
import { PaymentOrderService } from './payment-order/payment-order.service';
import { DEFAULT_SCA_TTL_MS, ScaService } from './payment-order/sca.service';
import { FundsConfirmationService } from './funds-confirmation/funds-confirmation.service';
import { VrpConsentService } from './vrp/vrp-consent.service';
import { VrpPaymentService } from './vrp/vrp-payment.service';

/** The open-banking subgraph's services, wired once: resolvers and background jobs share them. */
export interface OpenBankingModules {
  tpps: TppService;
  /** Dynamic client registration (RFC 7591, 7592) of fapi2 TPPs. */
  registrations: RegistrationService;
  consents: ConsentService;
  tokens: TokenService;
  pushedRequests: PushedAuthorizationService;
  /** Alias and bank routing (identity and banks registries, through the router). */
  directory: Directory;
  /** One bank-core client per bank, with open-banking's own deadlines. */
  cores: BankCorePool;
  authorisation: AuthorisationService;
  customerConsents: CustomerConsentsService;
  accounts: AccountService;
  paymentOrders: PaymentOrderService;
  sca: ScaService;
  /** Confirmation of funds (CBPII): its consents and questions. */
  fundsConfirmations: FundsConfirmationService;
  /** Variable recurring payments: VRP consents and their payments. */
  vrpConsents: VrpConsentService;
  vrpPayments: VrpPaymentService;
}

/** `testCores`: the built-in test bank (the service owns its lifecycle), for test consents and orders. */
export function createOpenBankingModules(
  settings: OpenBankingSettings,
  testCores: BuiltInTestCores,
): OpenBankingModules {
  const logger = settings.logger ?? createLogger('open-banking');
  const publicBaseUrl = (settings.publicBaseUrl ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '');
  const call = createServiceClient({
    routerUrl: settings.routerUrl ?? (() => ''),
    platformSecret: settings.platformSecret,
    service: 'open-banking',
  });
  const directory = new Directory(call, ROUTING_CACHE);
  const coreCalls = { ...DEFAULT_CORE_CALL_SETTINGS, ...settings.cores };
  const cores = new BankCorePool({
    timeoutMs: coreCalls.coreTimeoutMs,
    attempts: coreCalls.coreAttempts,
    budgetMs: coreCalls.coreBudgetMs,
    production: settings.production,
    // A bank's core URLs are reached under the egress policy of webhooks (PRIVATE_TARGETS).
    egress: { privateTargets: settings.webhookPrivateTargets ?? false },
    logger: logger.child({ component: 'bank-core' }),
    metrics: settings.metrics,
    testCores,
  });
  const bankCapabilities = new BankCapabilitiesClient(call);
  const accounts = new AccountService(directory, cores);
  const otpGuard = new OtpGuard(call, settings.platformSecret, logger.child({ component: 'otp-guard' }));
  const tpps = new TppService(settings);
  // One key for every instance (the platform secret's): a nonce handed out by one is accepted by all, the router's included.
  const dpopNonces = new DpopNonces(settings.platformSecret, settings.dpopNoncesRequired ?? settings.production);
  const clients = new ClientAuthenticator(audienceOf(publicBaseUrl));
  const proofs = new TokenEndpointProofs(publicBaseUrl, dpopNonces);
  const consents = new ConsentService({ publicBaseUrl }, bankCapabilities);
  const vrpConsents = new VrpConsentService(consents, directory, cores);
  return {
    vrpConsents,
    vrpPayments: new VrpPaymentService(vrpConsents, directory),
    tpps,
    registrations: new RegistrationService({ directoryJwks: settings.directoryJwks }, tpps),
    tokens: new TokenService(clients, proofs),
    pushedRequests: new PushedAuthorizationService(clients, proofs),
    consents,
    fundsConfirmations: new FundsConfirmationService(consents, directory, cores),
    directory,
    cores,
    authorisation: new AuthorisationService(
      { publicBaseUrl, platformSecret: settings.platformSecret },
      directory,
      cores,
      otpGuard,
      new CustomerAccountsClient(call),
      logger.child({ component: 'authorisation' }),
    ),
    customerConsents: new CustomerConsentsService(
      settings.platformSecret,
      directory,
      cores,
      otpGuard,
      new CustomerAccountsClient(call),
      logger.child({ component: 'customer-consents' }),
    ),
    accounts,
    paymentOrders: new PaymentOrderService({ publicBaseUrl }, directory, bankCapabilities, accounts),
    sca: new ScaService(
      { scaTtlMs: settings.scaTtlMs ?? DEFAULT_SCA_TTL_MS, platformSecret: settings.platformSecret },
      directory,
      cores,
      otpGuard,
      logger.child({ component: 'sca' }),
    ),
  };
}
