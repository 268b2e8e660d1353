import { Arg, Ctx, Directive, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { CORE_CALL_COST, type SubgraphContext } from '@gateway/federation';
import { Consent } from '../consent/consent.type';
import { COUNT_DEFAULT, COUNT_MAX, DEFAULT_WINDOW_DAYS, transactionWindowOf } from './account.rules';
import type { AccountService } from './account.service';
import { ObAccount, ObAccountBalances, ObAccountTransactions, ObBalance, ObTransaction } from './account.type';
import { coreReadsPerRequest, DEFAULT_MAX_CORE_CALLS_PER_REQUEST } from './core-reads';
import { dataCallConsent } from './data-call';

const FROM_DATE = `ISO 8601 date (YYYY-MM-DD) or date-time (counted for its calendar date); default ${DEFAULT_WINDOW_DAYS} days before toDate.`;
const TO_DATE = 'ISO 8601 date or date-time, inclusive; default today (UTC).';
const COUNT = `At most this many transactions, newest first: 1-${COUNT_MAX}, default ${COUNT_DEFAULT}.`;
const ERRORS = 'Errors: UNAUTHORIZED, TOKEN_REVOKED, CONSENT_EXPIRED, SCOPE_INSUFFICIENT, CBS_TIMEOUT, CBS_ERROR';

/**
 * Account information for the TPP, with the consent's access token only (Bearer at_ +
 * X-Consent-Id): root queries behind the REST paths, and the same data under Consent.accounts.
 * Every field checks the consent and its own scope (dataCallConsent) before it asks a core.
 * Each field that asks a core declares its price (CORE_CALL_COST, charged by the router); one
 * request reads each account and statement once and makes at most `maxCoreCallsPerRequest`
 * core calls (RequestCoreReads).
 */
export function createAccountResolvers(
  service: AccountService,
  maxCoreCallsPerRequest = DEFAULT_MAX_CORE_CALLS_PER_REQUEST,
) {
  const readsOf = coreReadsPerRequest(maxCoreCallsPerRequest);
  const transactionsOf = async (
    context: SubgraphContext,
    accountId: string,
    args: { fromDate: string | null; toDate: string | null; count: number | null },
  ) => {
    const consent = await dataCallConsent(context.em, context.principal, 'transactions:read');
    const window = transactionWindowOf(args);
    const account = await service.consentAccount(context.em, consent.id, accountId);
    return service.transactions(account, window, readsOf(context));
  };

  @Resolver()
  class AccountQueries {
    @Directive(CORE_CALL_COST)
    @Query(() => [ObAccount], {
      description: `The consent's accounts, read live from the bank core (GET /ob/accounts; scope accounts:read). ${ERRORS}.`,
    })
    async obAccounts(@Ctx() context: SubgraphContext): Promise<ObAccount[]> {
      const consent = await dataCallConsent(context.em, context.principal, 'accounts:read');
      return service.readAll(context.em, consent.id, readsOf(context));
    }

    @Directive(CORE_CALL_COST)
    @Query(() => ObAccountBalances, {
      description: `Balances of one consented account (GET /ob/accounts/{account_id}/balances; scope balances:read). ${ERRORS}, ACCOUNT_NOT_FOUND.`,
    })
    async obAccountBalances(
      @Arg('accountId', () => ID, { description: 'A consented account (acc_…); any other id is ACCOUNT_NOT_FOUND.' })
      accountId: string,
      @Ctx() context: SubgraphContext,
    ): Promise<ObAccountBalances> {
      const consent = await dataCallConsent(context.em, context.principal, 'balances:read');
      const account = await service.read(
        await service.consentAccount(context.em, consent.id, accountId),
        readsOf(context),
      );
      return { accountId, balances: service.balancesOf(account) };
    }

    @Directive(CORE_CALL_COST)
    @Query(() => ObAccountTransactions, {
      description: `Booked transactions of one consented account (GET /ob/accounts/{account_id}/transactions; scope transactions:read). ${ERRORS}, ACCOUNT_NOT_FOUND, VALIDATION_ERROR (fromDate after toDate, count out of range).`,
    })
    async obAccountTransactions(
      @Arg('accountId', () => ID, { description: 'A consented account (acc_…); any other id is ACCOUNT_NOT_FOUND.' })
      accountId: string,
      @Arg('fromDate', () => String, { nullable: true, description: FROM_DATE }) fromDate: string | null,
      @Arg('toDate', () => String, { nullable: true, description: TO_DATE }) toDate: string | null,
      @Arg('count', () => Int, { nullable: true, description: COUNT }) count: number | null,
      @Ctx() context: SubgraphContext,
    ): Promise<ObAccountTransactions> {
      return { accountId, transactions: await transactionsOf(context, accountId, { fromDate, toDate, count }) };
    }
  }

  @Resolver(() => Consent)
  class ConsentAccountsResolver {
    @Directive(CORE_CALL_COST)
    @FieldResolver(() => [ObAccount], {
      description: `The consented accounts, read live from the bank core: only with this consent's access token and scope accounts:read (the TPP token gets UNAUTHORIZED). ${ERRORS}.`,
    })
    async accounts(@Root() consent: Consent, @Ctx() context: SubgraphContext): Promise<ObAccount[]> {
      // The consent was readable, but its accounts are for its own access token only.
      if (context.principal.kind === 'ob_token' && context.principal.consentId !== consent.id)
        throw new GatewayError('FORBIDDEN', 'this access token is for another consent');
      const checked = await dataCallConsent(context.em, context.principal, 'accounts:read');
      return service.readAll(context.em, checked.id, readsOf(context));
    }
  }

  @Resolver(() => ObAccount)
  class ObAccountResolver {
    // Core data (the account's read, shared per request), priced like the root obAccountBalances.
    @Directive(CORE_CALL_COST)
    @FieldResolver(() => [ObBalance], { description: 'The balances of this account (scope balances:read).' })
    async balances(@Root() account: ObAccount, @Ctx() context: SubgraphContext): Promise<ObBalance[]> {
      await dataCallConsent(context.em, context.principal, 'balances:read');
      return service.balancesOf(account);
    }

    @Directive(CORE_CALL_COST)
    @FieldResolver(() => [ObTransaction], {
      description: 'Booked transactions of this account in a date window, newest first (scope transactions:read).',
    })
    async transactions(
      @Root() account: ObAccount,
      @Arg('fromDate', () => String, { nullable: true, description: FROM_DATE }) fromDate: string | null,
      @Arg('toDate', () => String, { nullable: true, description: TO_DATE }) toDate: string | null,
      @Arg('count', () => Int, { nullable: true, description: COUNT }) count: number | null,
      @Ctx() context: SubgraphContext,
    ): Promise<ObTransaction[]> {
      return transactionsOf(context, account.accountId, { fromDate, toDate, count });
    }
  }

  return [AccountQueries, ConsentAccountsResolver, ObAccountResolver] as const;
}
