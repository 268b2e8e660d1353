import { Arg, Args, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { AliasRoutingArgs, ClaimAliasInput, CustomerAccountsArgs, ResolveAliasArgs } from './alias.input';
import type { AliasService } from './alias.service';
import { Alias, AliasResolution, AliasRouting, toAlias, toResolution, toRouting } from './alias.type';

/** Only a bank key may act on the directory (anonymous: INVALID_BANK_KEY, any other credential: FORBIDDEN). */
const requireBank = (context: SubgraphContext) => requirePrincipal(context, ['bank'], 'INVALID_BANK_KEY');

/** Private alias fields are for the bank that claimed the alias, nobody else (not even an operator). */
function requireOwningBank(context: SubgraphContext, alias: Alias): void {
  const bank = requireBank(context);
  if (bank.id !== alias.bankHandle)
    throw new GatewayError('FORBIDDEN', `alias ${alias.handle} belongs to another bank`);
}

export function createAliasResolver(service: AliasService) {
  @Resolver(() => Alias)
  class AliasResolver {
    @Mutation(() => Alias, {
      description:
        "Enrolls a customer's alias (the calling bank's key; POST /v1/identity/claim). Errors: HANDLE_INVALID, HANDLE_TAKEN, IBAN_INVALID, IBAN_NOT_AT_BANK, PHONE_TAKEN, VALIDATION_ERROR.",
    })
    async claimAlias(
      @Arg('input', { description: 'The alias to claim for a customer of the calling bank.' }) input: ClaimAliasInput,
      @Ctx() context: SubgraphContext,
    ): Promise<Alias> {
      const bank = requireBank(context);
      const alias = await service.claim(context.em, bank, input);
      context.logger.info({ alias: alias.handle, bank: bank.id }, 'alias claimed');
      return toAlias(alias);
    }

    @Query(() => AliasResolution, {
      description:
        'Public resolution (GET /v1/identity/resolve): give exactly one of alias (handle or handle@bank_handle, case-insensitive), phone (E.164) or iban. ' +
        'Errors: ALIAS_NOT_FOUND, ALIAS_INACTIVE, VALIDATION_ERROR.',
    })
    async resolveAlias(@Args() args: ResolveAliasArgs, @Ctx() context: SubgraphContext): Promise<AliasResolution> {
      return toResolution(await service.resolve(context.em, args));
    }

    @Query(() => AliasRouting, {
      description:
        'Routing of an alias or IBAN for platform services only (the payments engine): includes the bank customer reference, and returns an INACTIVE alias with its status. ' +
        'Errors: ALIAS_NOT_FOUND, VALIDATION_ERROR.',
    })
    async aliasRouting(@Args() args: AliasRoutingArgs, @Ctx() context: SubgraphContext): Promise<AliasRouting> {
      requirePrincipal(context, ['service']);
      return toRouting(await service.route(context.em, args));
    }

    @Query(() => [String], {
      description:
        'The IBANs registered in the directory under one customer of one bank (ACTIVE aliases only, each IBAN once, oldest claim first; [] when there are none), for platform services only ' +
        '(open-banking fixes the accounts of a consent with it when the customer approves).',
    })
    async customerAccounts(@Args() args: CustomerAccountsArgs, @Ctx() context: SubgraphContext): Promise<string[]> {
      requirePrincipal(context, ['service']);
      return service.accountsOf(context.em, args.bankHandle, args.bankCustomerRef);
    }

    @Query(() => Alias, {
      description: 'An alias by handle, ACTIVE or INACTIVE (public; name masked). Error: ALIAS_NOT_FOUND.',
    })
    async alias(
      @Arg('handle', { description: 'The exact handle.' }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Alias> {
      return toAlias(await service.find(context.em, handle));
    }

    @Mutation(() => Alias, {
      description:
        'Deactivates an alias (its owning bank only; DELETE /v1/identity/aliases/{handle}). Idempotent; resolution then answers ALIAS_INACTIVE.',
    })
    async deactivateAlias(
      @Arg('handle', { description: 'The handle to deactivate.' }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<Alias> {
      const bank = requireBank(context);
      const alias = await service.deactivate(context.em, bank.id, handle);
      context.logger.info({ alias: alias.handle, bank: bank.id }, 'alias deactivated');
      return toAlias(alias);
    }

    @FieldResolver(() => String, { description: "The bank's own customer reference (the owning bank only)." })
    bankCustomerRef(@Root() alias: Alias, @Ctx() context: SubgraphContext): string {
      requireOwningBank(context, alias);
      return alias.entity.bankCustomerRef;
    }

    @FieldResolver(() => String, {
      nullable: true,
      description: 'Mobile number in E.164, if the bank registered one (the owning bank only).',
    })
    phone(@Root() alias: Alias, @Ctx() context: SubgraphContext): string | null {
      requireOwningBank(context, alias);
      return alias.entity.phone ?? null;
    }
  }
  return AliasResolver;
}
