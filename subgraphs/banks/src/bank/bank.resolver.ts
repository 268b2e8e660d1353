import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { auditedBy } from '@gateway/audit';
import { RegisterBankInput, UpdateBankCapabilitiesInput } from './bank.input';
import type { BankService } from './bank.service';
import {
  Bank,
  BankCapabilities,
  BankKeyRotation,
  BankRegistration,
  BankRouting,
  SettlementAccount,
  toBank,
  toCapabilities,
  toRouting,
} from './bank.type';

/** Only the bank itself (its bank key) or an operator (admin key) may act on or read a bank's record. */
export function requireBankOrAdmin(context: SubgraphContext, handle: string, allowAdmin: boolean): void {
  const principal = requirePrincipal(context, allowAdmin ? ['bank', 'admin'] : ['bank'], 'INVALID_BANK_KEY');
  if (principal.kind === 'bank' && principal.id !== handle) {
    throw new GatewayError('FORBIDDEN', `this bank key belongs to ${principal.id}, not ${handle}`);
  }
}

export function createBankResolver(service: BankService) {
  @Resolver(() => Bank)
  class BankResolver {
    @Query(() => Bank, {
      description:
        'A bank by handle. Public fields for anyone; contact and settlement fields for the bank itself or an operator.',
    })
    async bank(
      @Arg('handle', { description: 'Bank handle.' }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Bank> {
      return toBank(await service.find(context.em, handle));
    }

    @Query(() => BankCapabilities, { description: "A bank's Open Banking capabilities (public)." })
    async bankCapabilities(
      @Arg('handle', { description: 'Bank handle.' }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<BankCapabilities> {
      return toCapabilities(await service.find(context.em, handle));
    }

    @Query(() => BankRouting, {
      description:
        'A participating bank by handle or institution code (exactly one), for platform services only (the payment engine, settlement): core URL, internal key, limits and settlement account. ' +
        'Errors: BANK_NOT_REGISTERED, BANK_NOT_PARTICIPATING (not ACTIVE, unless includeSuspended).',
    })
    async bankRouting(
      @Arg('handle', () => String, { nullable: true, description: 'Bank handle.' }) handle: string | null,
      @Arg('institutionCode', () => String, {
        nullable: true,
        description: 'Three-digit institution code (from an IBAN).',
      })
      institutionCode: string | null,
      @Arg('includeSuspended', () => Boolean, {
        nullable: true,
        description:
          'For work already in flight (engine steps, settlement): a SUSPENDED bank is answered too, so its movements finish and its positions settle. Default false: new work.',
      })
      includeSuspended: boolean | null,
      @Ctx() context: SubgraphContext,
    ): Promise<BankRouting> {
      requirePrincipal(context, ['service']);
      return toRouting(await service.routing(context.em, { handle, institutionCode, includeSuspended }));
    }

    @Mutation(() => BankRegistration, {
      description: 'Registers a bank (operator). Returns the bank key and internal key once.',
    })
    async registerBank(
      @Arg('input', { description: 'The bank to register.' }) input: RegisterBankInput,
      @Ctx() context: SubgraphContext,
    ): Promise<BankRegistration> {
      requirePrincipal(context, ['admin']);
      const { bank, bankKey, internalKey, sandboxInternalKey } = await service.register(
        context.em,
        input,
        auditedBy(context),
      );
      context.logger.info({ bank: bank.handle, sandbox_core: bank.sandboxCoreBaseUrl !== null }, 'bank registered');
      return { bank: toBank(bank), bankKey, internalKey, sandboxInternalKey };
    }

    @Mutation(() => BankCapabilities, { description: "Changes the calling bank's Open Banking capabilities." })
    async updateBankCapabilities(
      @Arg('handle', { description: "The calling bank's handle." }) handle: string,
      @Arg('input', { description: 'The capabilities to change; omitted ones stay.' })
      input: UpdateBankCapabilitiesInput,
      @Ctx() context: SubgraphContext,
    ): Promise<BankCapabilities> {
      requireBankOrAdmin(context, handle, false);
      return toCapabilities(await service.updateCapabilities(context.em, handle, input, auditedBy(context)));
    }

    @Mutation(() => BankKeyRotation, {
      description:
        "Rotates a bank's key (the bank itself, or an operator giving it a new key after revokeBankKey): the new key is returned once, the old one stops working at once.",
    })
    async rotateBankKey(
      @Arg('handle', { description: "The bank's handle." }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<BankKeyRotation> {
      requireBankOrAdmin(context, handle, true);
      const bankKey = await service.rotateKey(context.em, handle, auditedBy(context));
      context.logger.info({ bank: handle, by: context.principal.kind }, 'bank key rotated');
      return { bankKey };
    }

    @FieldResolver(() => String, { description: 'Core callback base URL (the bank or an operator only).' })
    coreBaseUrl(@Root() bank: Bank, @Ctx() context: SubgraphContext): string {
      requireBankOrAdmin(context, bank.handle, true);
      return bank.entity.coreBaseUrl;
    }

    @FieldResolver(() => String, {
      nullable: true,
      description:
        "The bank's own test core, where test objects' calls go (the bank or an operator only); null: the built-in test bank.",
    })
    sandboxCoreBaseUrl(@Root() bank: Bank, @Ctx() context: SubgraphContext): string | null {
      requireBankOrAdmin(context, bank.handle, true);
      return bank.entity.sandboxCoreBaseUrl;
    }

    @FieldResolver(() => String, { description: 'Settlement account IBAN (the bank or an operator only).' })
    settlementAccountIban(@Root() bank: Bank, @Ctx() context: SubgraphContext): string {
      requireBankOrAdmin(context, bank.handle, true);
      return bank.entity.settlementAccountIban;
    }

    @FieldResolver(() => [SettlementAccount], {
      description: 'Settlement accounts for particular currencies (the bank or an operator only).',
    })
    settlementAccounts(@Root() bank: Bank, @Ctx() context: SubgraphContext): SettlementAccount[] {
      requireBankOrAdmin(context, bank.handle, true);
      return bank.entity.settlementAccounts;
    }

    @FieldResolver(() => BankRouting, {
      nullable: true,
      description:
        "The bank's routing, as bankRouting answers it, for platform services only: read through another subgraph's reference to the bank (a payer's routing in the identity registry) in the same call. Null when the bank is not ACTIVE (BANK_NOT_PARTICIPATING).",
    })
    routing(@Root() bank: Bank, @Ctx() context: SubgraphContext): BankRouting | null {
      requirePrincipal(context, ['service']);
      const participating = service.participating(bank.entity);
      return participating && toRouting(participating);
    }

    @FieldResolver(() => String, { description: 'Contact email (the bank or an operator only).' })
    contactEmail(@Root() bank: Bank, @Ctx() context: SubgraphContext): string {
      requireBankOrAdmin(context, bank.handle, true);
      return bank.entity.contactEmail;
    }
  }
  return BankResolver;
}
