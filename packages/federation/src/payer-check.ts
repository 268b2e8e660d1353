import { GatewayError, type World } from '@gateway/kernel';
import type { AliasRouting, BankRouting, Directory } from './directory';
import type { OtpCheck, OtpGuard, PayerLookup } from './otp-guard';

/** A payer ready to be asked for their OTP: their routing, their bank's, and the check taken for them. */
export interface CheckedPayer {
  payer: AliasRouting;
  bank: BankRouting;
  check: OtpCheck;
}

/**
 * A payer's authorization, with one trip to the identity registry (and the give-back riding on a
 * later one): their routing, their bank's routing and an OTP check taken for that same customer
 * come in one call through the router (OtpGuard.takeForPayer). The bank's routing is read in that
 * call unless the bank cache is in use (then the router sends the call to identity alone, and the
 * bank comes from the cache, asked after the take when it is not there), and what it brings is
 * cached for the engine. The test world's test payers are answered by the
 * directory, with the check taken alone (the registry does not know them).
 */
export class PayerCheck {
  constructor(
    private readonly directory: Directory,
    private readonly guard: OtpGuard,
  ) {}

  /**
   * ALIAS_NOT_FOUND, ALIAS_INACTIVE (nothing taken), BANK_NOT_PARTICIPATING (the check given back),
   * VALIDATION_ERROR; a check refused by the registry comes back as such (RATE_LIMITED from `verify`).
   */
  async take(
    lookup: PayerLookup,
    otp: string,
    world: World,
    client: string | null,
    requestId?: string,
  ): Promise<CheckedPayer> {
    const testPayer = await this.directory.testPayer(lookup, world, requestId);
    if (testPayer) {
      const bank = await this.directory.bank({ handle: testPayer.bankHandle }, requestId);
      return { payer: testPayer, bank, check: await this.guard.take({ ...testPayer, world, client }, otp, requestId) };
    }
    const known = this.directory.knownBank(lookup);
    // The bank's routing rides on the take only while the bank cache is cold: a new payer at a
    // cached bank then costs the banks subgraph nothing (issue 32: statements per payment), and a
    // payer at a bank not cached costs one call more after the take, never a statement more.
    const withBank = !known && !this.directory.banksCached();
    const taken = await this.guard.takeForPayer(lookup, otp, world, client, withBank, requestId);
    const { payer, check } = taken;
    if (!check) throw new GatewayError('ALIAS_INACTIVE', `alias ${payer.handle} is deactivated`);
    this.directory.learn(lookup, payer, taken.bank ?? undefined);
    try {
      return { payer, bank: await this.bankOf(payer, taken.bank, known, requestId), check };
    } catch (error) {
      check.release();
      throw error;
    }
  }

  private async bankOf(
    payer: AliasRouting,
    answered: BankRouting | null | undefined,
    known: BankRouting | undefined,
    requestId?: string,
  ): Promise<BankRouting> {
    if (answered === null)
      throw new GatewayError('BANK_NOT_PARTICIPATING', `bank ${payer.bankHandle} takes no part in payments`);
    if (answered) return answered;
    // Not asked: the cached bank, unless the lookup resolved elsewhere (never expected: a lookup's bank does not change).
    return known?.handle === payer.bankHandle ? known : this.directory.bank({ handle: payer.bankHandle }, requestId);
  }
}
