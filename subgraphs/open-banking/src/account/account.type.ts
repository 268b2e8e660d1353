import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

export enum AccountType {
  CURRENT = 'CURRENT',
}

registerEnumType(AccountType, {
  name: 'AccountType',
  description: 'Kind of account (spec "Account"); CURRENT is the only kind the bank core interface tells apart today.',
  valuesConfig: { CURRENT: { description: 'A current (checking) account.' } },
});

export enum BalanceType {
  AVAILABLE = 'AVAILABLE',
}

registerEnumType(BalanceType, {
  name: 'BalanceType',
  description: 'Which balance an amount is (contract "Balances").',
  valuesConfig: {
    AVAILABLE: { description: "What the customer can spend now, as the bank core reports the account's balance." },
  },
});

export enum CreditDebitIndicator {
  CREDIT = 'CREDIT',
  DEBIT = 'DEBIT',
}

registerEnumType(CreditDebitIndicator, {
  name: 'CreditDebitIndicator',
  description: 'Direction of a transaction; its amount is always positive.',
  valuesConfig: {
    CREDIT: { description: 'Money into the account.' },
    DEBIT: { description: 'Money out of the account.' },
  },
});

@ObjectType('ObBalance', { description: 'One balance of an account, read live from the bank core.' })
export class ObBalance {
  @Field(() => BalanceType, { description: 'Which balance this is.' })
  type!: BalanceType;

  @Field(() => GraphQLSafeInt, { description: 'Integer minor units; negative when the account is overdrawn.' })
  amount!: number;

  @Field({ description: 'ISO 4217 currency of amount.' })
  currency!: string;
}

@ObjectType('ObTransaction', { description: 'One booked transaction of an account, read live from the bank core.' })
export class ObTransaction {
  @Field(() => ID, {
    description:
      "The bank core's transaction id; when the core gives none, an id derived from the transaction's fields, stable for this account within this consent.",
  })
  transactionId!: string;

  @Field({ description: 'Booking date, YYYY-MM-DD.' })
  bookingDate!: string;

  @Field(() => GraphQLSafeInt, {
    description: 'Integer minor units, always positive: creditDebitIndicator gives the direction.',
  })
  amount!: number;

  @Field({ description: 'ISO 4217 currency of amount.' })
  currency!: string;

  @Field(() => CreditDebitIndicator, { description: 'CREDIT (in) or DEBIT (out).' })
  creditDebitIndicator!: CreditDebitIndicator;

  @Field({ description: "The core's description of the transaction; empty when it gives none." })
  description!: string;
}

@ObjectType('ObAccount', {
  description:
    'An account the customer consented to share (spec "Account"), read live from the bank core. Balances need balances:read, transactions transactions:read.',
})
export class ObAccount {
  @Field(() => ID, {
    description: 'Account id (acc_…): stable for this IBAN within this consent, different under another consent.',
  })
  accountId!: string;

  @Field({ description: 'IBAN of the account.' })
  iban!: string;

  @Field({ description: 'ISO 4217 currency of the account.' })
  currency!: string;

  @Field(() => AccountType, { description: 'Kind of account.' })
  accountType!: AccountType;

  @Field({
    description:
      "Name to show for the account: the holder's name as the bank core gives it, else the IBAN's last four characters.",
  })
  displayName!: string;

  /** The balance the core gave with the account, so `balances` under it needs no second core call. Not in the graph. */
  availableBalance!: number;
}

@ObjectType('ObAccountBalances', {
  description: 'The balances of one consented account (GET /ob/accounts/{account_id}/balances).',
})
export class ObAccountBalances {
  @Field(() => ID, { description: 'Account id (acc_…).' })
  accountId!: string;

  @Field(() => [ObBalance], { description: 'Its balances: the AVAILABLE balance.' })
  balances!: ObBalance[];
}

@ObjectType('ObAccountTransactions', {
  description: 'Transactions of one consented account (GET /ob/accounts/{account_id}/transactions).',
})
export class ObAccountTransactions {
  @Field(() => ID, { description: 'Account id (acc_…).' })
  accountId!: string;

  @Field(() => [ObTransaction], {
    description: 'Booked transactions in the date window, newest first, at most count of them.',
  })
  transactions!: ObTransaction[];
}
