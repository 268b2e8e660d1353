import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { GatewayError, parseInput, type Principal } from '@gateway/kernel';
import { AliasEntity } from './alias.entity';
import type { ClaimAliasInput } from './alias.input';
import {
  claimAliasRules,
  parseLookup,
  parseRoutingLookup,
  requireAccountAtBank,
  requireHandle,
  type ResolveArgs,
  type RoutingLookup,
} from './alias.rules';

/** The partial unique index that keeps a phone number on at most one ACTIVE alias (migration). */
const ACTIVE_PHONE_UNIQUE = 'aliases_active_phone_unique';

const handleTaken = (handle: string) => new GatewayError('HANDLE_TAKEN', `npt_handle: ${handle} is already claimed`);
const phoneTaken = () => new GatewayError('PHONE_TAKEN', 'phone: already linked to another active alias');
const notFound = (what: string) => new GatewayError('ALIAS_NOT_FOUND', `no alias for ${what}`);

export class AliasService {
  async find(em: EntityManager, handle: string): Promise<AliasEntity> {
    const alias = await em.findOne(AliasEntity, { handle });
    if (!alias) throw notFound(handle);
    return alias;
  }

  /** A bank enrolls its customer. Everything is validated before the database is touched. */
  async claim(em: EntityManager, bank: Principal & { id: string }, input: ClaimAliasInput): Promise<AliasEntity> {
    const handle = requireHandle(input.nptHandle);
    const valid = parseInput(claimAliasRules, { ...input });
    const iban = requireAccountAtBank(valid.iban, bank.id, bank.scopes);
    const phone = valid.phone ?? null;
    try {
      return await em.transactional(async (tx) => {
        // Checked first for a clear answer; the primary key and the partial unique index decide concurrent claims.
        if (await tx.count(AliasEntity, { handle })) throw handleTaken(handle);
        if (phone && (await tx.count(AliasEntity, { phone, status: 'ACTIVE' }))) throw phoneTaken();
        return tx.create(AliasEntity, {
          handle,
          iban: iban.iban,
          institutionCode: iban.institutionCode,
          bankHandle: bank.id,
          customerDisplayName: valid.customerDisplayName,
          bankCustomerRef: valid.bankCustomerRef,
          phone,
          status: 'ACTIVE',
          createdAt: new Date(),
          deactivatedAt: null,
        });
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw (error as { constraint?: string }).constraint === ACTIVE_PHONE_UNIQUE
          ? phoneTaken()
          : handleTaken(handle);
      }
      throw error;
    }
  }

  /** Public resolution: handle (optionally qualified by bank), phone or IBAN to the ACTIVE alias routing there. */
  async resolve(em: EntityManager, args: ResolveArgs): Promise<AliasEntity> {
    const lookup = parseLookup(args);
    if (lookup.by === 'handle') {
      const alias = await em.findOne(AliasEntity, { handle: lookup.handle });
      // A qualified alias at another bank does not exist as far as the payer is concerned.
      if (!alias || (lookup.bankHandle !== undefined && alias.bankHandle !== lookup.bankHandle))
        throw notFound(args.alias ?? lookup.handle);
      if (alias.status !== 'ACTIVE') throw new GatewayError('ALIAS_INACTIVE', `alias ${alias.handle} is deactivated`);
      return alias;
    }
    const where = lookup.by === 'phone' ? { phone: lookup.phone } : { iban: lookup.iban };
    const what = lookup.by === 'phone' ? 'this phone number' : 'this IBAN';
    // Several handles may share an IBAN: the most recently claimed active one answers.
    const active = await em.findOne(
      AliasEntity,
      { ...where, status: 'ACTIVE' },
      { orderBy: { createdAt: 'desc', handle: 'asc' } },
    );
    if (active) return active;
    if (await em.count(AliasEntity, where))
      throw new GatewayError('ALIAS_INACTIVE', `every alias for ${what} is deactivated`);
    throw notFound(what);
  }

  /**
   * Routing for platform services (payments): like resolve(), but an INACTIVE alias is returned
   * with its status rather than refused, so the caller decides (ALIAS_INACTIVE for a destination).
   * Phone numbers are not a routing input: payers and destinations name an alias or an IBAN.
   */
  async route(em: EntityManager, args: { alias?: string | null; iban?: string | null }): Promise<AliasEntity> {
    const lookup = parseRoutingLookup(args);
    if (lookup.by === 'handle') {
      const alias = await em.findOne(AliasEntity, { handle: lookup.handle });
      if (!alias || (lookup.bankHandle !== undefined && alias.bankHandle !== lookup.bankHandle))
        throw routingNotFound(args, lookup);
      return alias;
    }
    const newestFirst = { orderBy: { createdAt: 'desc', handle: 'asc' } } as const;
    const alias =
      (await em.findOne(AliasEntity, { iban: lookup.iban, status: 'ACTIVE' }, newestFirst)) ??
      (await em.findOne(AliasEntity, { iban: lookup.iban }, newestFirst));
    if (!alias) throw routingNotFound(args, lookup);
    return alias;
  }

  /**
   * The IBANs a bank registered in the directory under one of its customers (ACTIVE aliases
   * only: a released alias no longer speaks for an account), each once, in the order they were
   * first claimed. What a customer consents to share with a TPP (contract "Consented accounts").
   */
  async accountsOf(em: EntityManager, bankHandle: string, bankCustomerRef: string): Promise<string[]> {
    const aliases = await em.find(
      AliasEntity,
      { bankHandle, bankCustomerRef, status: 'ACTIVE' },
      { orderBy: { createdAt: 'asc', handle: 'asc' } },
    );
    return [...new Set(aliases.map((alias) => alias.iban))];
  }

  /** The owning bank releases an alias; repeating it changes nothing (deactivatedAt keeps the first time). */
  async deactivate(em: EntityManager, bankHandle: string, handle: string): Promise<AliasEntity> {
    return em.transactional(async (tx) => {
      const alias = await tx.findOne(AliasEntity, { handle }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!alias) throw notFound(handle);
      if (alias.bankHandle !== bankHandle)
        throw new GatewayError('FORBIDDEN', `alias ${handle} belongs to another bank`);
      if (alias.status === 'ACTIVE') {
        alias.status = 'INACTIVE';
        alias.deactivatedAt = new Date();
      }
      return alias;
    });
  }
}

/** route()'s refusal of a lookup that finds no alias. */
export function routingNotFound(args: { alias?: string | null }, lookup: RoutingLookup): GatewayError {
  return notFound(lookup.by === 'handle' ? (args.alias ?? lookup.handle) : 'this IBAN');
}

/**
 * The row route() answers, as one SELECT of identity.aliases, for a statement that reads it with
 * a write of its own (the payer's take, otp-guard.service.ts): a handle (at its bank when
 * qualified), or an IBAN's most recently claimed ACTIVE alias, else its most recent one. The
 * alias spec checks that both answer the same rows.
 */
export function routingRowQuery(lookup: RoutingLookup): { sql: string; params: unknown[] } {
  if (lookup.by === 'handle')
    return lookup.bankHandle === undefined
      ? { sql: 'select * from identity.aliases where handle = ?', params: [lookup.handle] }
      : {
          sql: 'select * from identity.aliases where handle = ? and bank_handle = ?',
          params: [lookup.handle, lookup.bankHandle],
        };
  return {
    sql: `select * from identity.aliases where iban = ?
          order by (status = 'ACTIVE') desc, created_at desc, handle asc limit 1`,
    params: [lookup.iban],
  };
}
