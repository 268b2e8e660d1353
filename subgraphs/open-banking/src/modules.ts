import { BankCorePool } from '@gateway/bank-core-client';
import { createServiceClient, Directory } from '@gateway/federation';
import { createLogger } from '@gateway/kernel';
import { AccountService } from './account/account.service';
import { BankCapabilitiesClient } from './banks/bank-capabilities';
import { ConsentService } from './consent/consent.service';
import { TokenService } from './grant/token.service';
import { DEFAULT_ACCOUNT_READS, DEFAULT_PUBLIC_BASE_URL, type OpenBankingSettings } from './settings';
import { TppService } from './tpp/tpp.service';

/** The open-banking subgraph's services, wired once: resolvers and background jobs share them. */
export interface OpenBankingModules {
  tpps: TppService;
  consents: ConsentService;
  tokens: TokenService;
  /** Bank and alias routing through the router (bank cores' addresses and keys). */
  directory: Directory;
  /** One bank-core client per bank, with open-banking's own deadlines. */
  cores: BankCorePool;
  accounts: AccountService;
}

export function createOpenBankingModules(settings: OpenBankingSettings): OpenBankingModules {
  const logger = settings.logger ?? createLogger('open-banking');
  const reads = { ...DEFAULT_ACCOUNT_READS, ...settings.accountReads };
  const call = createServiceClient({ routerUrl: settings.routerUrl ?? (() => ''), platformSecret: settings.platformSecret, service: 'open-banking' });
  const directory = new Directory(call, { bankMs: reads.bankRoutingCacheMs, aliasMs: reads.aliasRoutingCacheMs });
  const cores = new BankCorePool({
    timeoutMs: reads.coreTimeoutMs,
    attempts: reads.coreAttempts,
    budgetMs: reads.coreBudgetMs,
    production: settings.production,
    logger: logger.child({ component: 'bank-core' }),
  });
  return {
    tpps: new TppService(settings),
    tokens: new TokenService(),
    consents: new ConsentService({ publicBaseUrl: (settings.publicBaseUrl ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '') }, new BankCapabilitiesClient(call)),
    directory,
    cores,
    accounts: new AccountService(directory, cores),
  };
}
