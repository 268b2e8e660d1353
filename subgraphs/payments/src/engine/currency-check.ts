import type { BankRouting, Directory } from '@gateway/federation';
import type { Currency, GatewayError } from '@gateway/kernel';
import type { AccountCurrencies, NamedAccount } from '../account-currency/account-currency';
import type { ExecutionKind } from '../movement/movement';

/** How a refusal names each kind of movement ("session currency USD, payer account … is in LYD"). */
const WHAT: Record<ExecutionKind, string> = {
  session: 'session',
  mandate_charge: 'charge',
  payment_order: 'payment order',
  refund: 'refund',
  vrp_payment: 'VRP payment',
};

/** One side of a movement, as the check needs it. */
export interface MovementAccount {
  /** Its bank: the routing when the caller has it, else the handle (asked as work in flight). */
  bank: BankRouting | string;
  iban: string;
  /** As the payer or merchant gave it (alias or IBAN), for the refusal's detail. */
  name: string;
}

/** A movement about to debit its payer. */
export interface MovementToCheck {
  kind: ExecutionKind;
  livemode: boolean;
  currency: Currency;
  payer: MovementAccount;
  payee: MovementAccount;
}

/**
 * The authorization's pre-debit step: an account on either side of the movement held in another
 * currency than the movement's is refused (422 CURRENCY_MISMATCH) before any debit is sent. An
 * account whose currency is unknown passes; a core's refusal of the debit or credit whose code
 * says currency is then read as CURRENCY_MISMATCH (outcome.ts).
 */
export class CurrencyCheck {
  constructor(
    private readonly directory: Directory,
    private readonly currencies: AccountCurrencies,
  ) {}

  /** The payee's refusal first: no other account of the payer's can pay it. */
  async refusal(movement: MovementToCheck, requestId?: string): Promise<GatewayError | null> {
    const [payee, payer] = await Promise.all([
      this.side(movement, movement.payee, 'payee', requestId),
      this.side(movement, movement.payer, 'payer', requestId),
    ]);
    return payee ?? payer;
  }

  private async side(
    movement: MovementToCheck,
    account: MovementAccount,
    role: NamedAccount['role'],
    requestId?: string,
  ): Promise<GatewayError | null> {
    const bank =
      typeof account.bank === 'string'
        ? // No routing, no check: the movement's own calls report a bank they cannot reach.
          await this.directory.bankInFlight({ handle: account.bank }, requestId).catch(() => null)
        : account.bank;
    if (!bank) return null;
    return this.currencies.refusal(
      { bank, iban: account.iban, livemode: movement.livemode, role, name: account.name },
      { what: WHAT[movement.kind], currency: movement.currency },
      requestId,
    );
  }
}
