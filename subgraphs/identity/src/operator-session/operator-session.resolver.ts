import { Arg, Ctx, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { audit, auditedBy, SECRET_ISSUED } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import {
  CONFIGURED_ADMIN_KEY_OWNER,
  GatewayError,
  OPERATOR_SESSION_PREFIX,
  OPERATOR_SESSION_SCOPE,
  OPERATOR_SESSION_TTL_SECONDS,
} from '@gateway/kernel';
import { vault } from '@gateway/vault';

@ObjectType({
  description:
    "An operator console's session, exchanged for an admin key: rest-compat keeps it in an HttpOnly cookie (POST /operator/session).",
})
export class OperatorSession {
  @Field({ description: 'The session secret (ocs_…), shown this once; stored as a hash.' })
  token!: string;

  @Field({ description: 'The operator it signs in: the admin key’s name (ADMIN_KEY for the configured key).' })
  name!: string;

  @Field({ description: 'When it stops working, whatever its use (ISO 8601 UTC): 8 hours after sign-in.' })
  expiresAt!: string;
}

@ObjectType({ description: 'The operator an admin credential speaks for (the console asks who it is signed in as).' })
export class CurrentOperator {
  @Field({
    description: 'The admin key’s name, as the logs and the audit log show it (ADMIN_KEY for the configured key).',
  })
  name!: string;

  @Field(() => ID, { nullable: true, description: 'The named key’s id (adk_…); null for the configured ADMIN_KEY.' })
  keyId!: string | null;

  @Field({ description: 'True when the caller is a console session rather than the key itself.' })
  consoleSession!: boolean;
}

/**
 * The operator console's sign-in (issue 50), as the merchant dashboard's: the admin key is
 * presented once and a short-lived session (vault kind operator_session, owned by the key's id
 * and labelled with its name) is issued, which the router accepts as that admin. Revoking the key
 * revokes its sessions (AdminKeyService.revoke); the browser never keeps the key.
 */
@Resolver()
export class OperatorSessionResolver {
  @Mutation(() => OperatorSession, {
    description:
      'Starts an operator console session for the admin key that calls (POST /operator/session sets it as a cookie). ' +
      'Errors: UNAUTHORIZED (not a working admin key: unknown or revoked), FORBIDDEN (a console session: only the key starts one).',
  })
  async startOperatorSession(@Ctx() context: SubgraphContext): Promise<OperatorSession> {
    requirePrincipal(context, ['admin'], 'UNAUTHORIZED');
    const admin = context.principal;
    // A session must not outlive itself by minting the next one: only the key signs in.
    if (admin.scopes?.includes(OPERATOR_SESSION_SCOPE))
      throw new GatewayError('FORBIDDEN', 'a console session cannot start another; sign in with the admin key');
    const name = admin.name ?? CONFIGURED_ADMIN_KEY_OWNER;
    const ownerId = admin.id ?? CONFIGURED_ADMIN_KEY_OWNER;
    const expiresAt = new Date(Date.now() + OPERATOR_SESSION_TTL_SECONDS * 1000);
    const by = auditedBy(context);
    const token = await context.em.transactional(async (tx) => {
      const { raw } = vault.issue(tx, {
        kind: 'operator_session',
        ownerId,
        prefix: OPERATOR_SESSION_PREFIX,
        scopes: [OPERATOR_SESSION_SCOPE],
        label: name,
        expiresAt,
      });
      const changes = { operator_session: SECRET_ISSUED, expires_at: { to: expiresAt.toISOString() } };
      audit.record(tx, { actor: by.actor, action: 'operator_session.started', target: ownerId, changes }, by.logger);
      return raw;
    });
    return { token, name, expiresAt: expiresAt.toISOString() };
  }

  @Mutation(() => Boolean, {
    description:
      'Ends an operator console session (DELETE /operator/session): holding its secret is the right to end it. True when a live session ended; false when there was none.',
  })
  async endOperatorSession(
    @Arg('token', { description: 'The session secret (ocs_…).' }) token: string,
    @Ctx() context: SubgraphContext,
  ): Promise<boolean> {
    const session = await vault.lookup(context.em, ['operator_session'], token);
    return session ? vault.revoke(context.em, session) : false;
  }

  @Query(() => CurrentOperator, {
    description: 'The operator the admin credential (key or console session) speaks for. Errors: FORBIDDEN.',
  })
  currentOperator(@Ctx() context: SubgraphContext): CurrentOperator {
    requirePrincipal(context, ['admin']);
    const admin = context.principal;
    return {
      name: admin.name ?? CONFIGURED_ADMIN_KEY_OWNER,
      keyId: admin.id ?? null,
      consoleSession: admin.scopes?.includes(OPERATOR_SESSION_SCOPE) ?? false,
    };
  }
}
