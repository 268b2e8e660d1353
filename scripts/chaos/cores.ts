import { newSecret } from '@gateway/kernel';
import { startBanksProcess, type BanksProcess, type SandboxCore } from '../launcher/sandbox-banks';
import type { Client } from './client';
import { between } from './random';

/**
 * The run's three sandbox bank cores, in a process of their own so their ledgers live through
 * every platform kill. Their ledgers are the truth the money invariants are checked against.
 */
export class SandboxCores {
  private constructor(
    readonly banksProcess: BanksProcess,
    private readonly sharedKey: string,
    private readonly client: Client,
  ) {}

  /** `env`: added to the banks process's environment (the soak run's probe, which stops it when the run dies). */
  static async start(databaseUrl: string, client: Client, env: Record<string, string> = {}): Promise<SandboxCores> {
    const sharedKey = newSecret('sik_');
    const suffix = String(between(100, 999));
    const banksProcess = await startBanksProcess({
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      INTERNAL_KEY: sharedKey,
      BANKS: `chaosa${suffix}:901,chaosb${suffix}:902,chaosc${suffix}:903`,
      LOG_LEVEL: 'error',
      ...env,
    });
    return new SandboxCores(banksProcess, sharedKey, client);
  }

  get banks(): SandboxCore[] {
    return this.banksProcess.ready.banks;
  }

  /** The key the platform presents to a bank's core (registered with the bank). */
  keyOf(handle: string): string {
    return `${this.sharedKey}_${handle}`;
  }

  /** Headers for a core's own sandbox endpoints (accounts, ledger, faults, gateway). */
  internal(handle: string): Record<string, string> {
    return { 'x-service-internal-key': this.keyOf(handle) };
  }

  async ledger(bank: SandboxCore): Promise<any> {
    return this.client.ok('GET', `${bank.url}/sandbox/ledger`, undefined, this.internal(bank.handle));
  }

  /** The sum of every account's balance over the three cores (money is conserved: it never changes). */
  async totalBalance(): Promise<number> {
    let total = 0;
    for (const bank of this.banks) {
      const ledger = await this.ledger(bank);
      for (const account of ledger.accounts) total += Number(account.balance);
    }
    return total;
  }

  async injectFault(bank: SandboxCore, plan: Record<string, unknown>): Promise<void> {
    await this.client.ok('POST', `${bank.url}/sandbox/faults`, plan, this.internal(bank.handle));
  }

  async clearFaults(bank: SandboxCore): Promise<void> {
    await this.client.ok('DELETE', `${bank.url}/sandbox/faults`, undefined, this.internal(bank.handle));
  }
}
