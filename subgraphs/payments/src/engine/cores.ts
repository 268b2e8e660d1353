import { createBankCoreClient, type BankCoreClient } from '@gateway/bank-core-client';
import type { Logger } from '@gateway/kernel';
import type { BankRouting } from '../routing/directory';
import type { EngineSettings } from './engine.settings';

/**
 * One bank-core client per bank (and per core URL and key, so a changed registration gets a new
 * client), with the engine's deadlines: every call must fit inside a lease and an authorize.
 */
export class BankCores {
  private readonly clients = new Map<string, BankCoreClient>();

  constructor(
    private readonly settings: EngineSettings,
    private readonly production: boolean,
    private readonly logger: Logger,
  ) {}

  for(bank: BankRouting): BankCoreClient {
    const key = `${bank.handle}\n${bank.coreBaseUrl}\n${bank.internalKey}`;
    let client = this.clients.get(key);
    if (!client) {
      client = createBankCoreClient({
        bankHandle: bank.handle,
        baseUrl: bank.coreBaseUrl,
        internalKey: bank.internalKey,
        timeoutMs: this.settings.coreTimeoutMs,
        retry: { attempts: this.settings.coreAttempts, baseDelayMs: 100, maxDelayMs: 1_000 },
        totalBudgetMs: this.settings.coreBudgetMs,
        production: this.production,
        logger: this.logger,
      });
      this.clients.set(key, client);
    }
    return client;
  }
}
