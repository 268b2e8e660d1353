import { Arg, Ctx, Field, Mutation, ObjectType, Resolver } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import {
  DASHBOARD_SESSION_PREFIX,
  DASHBOARD_SESSION_SCOPE,
  DASHBOARD_SESSION_TTL_SECONDS,
  GatewayError,
} from '@gateway/kernel';
import { vault } from '@gateway/vault';

@ObjectType({
  description:
    "A merchant dashboard's session, exchanged for the merchant key: rest-compat keeps it in an HttpOnly cookie.",
})
export class DashboardSession {
  @Field({ description: 'The session secret (mds_…), shown this once; stored as a hash.' })
  token!: string;

  @Field({ description: 'The merchant it signs in (mer_…).' })
  merchantId!: string;

  @Field({ description: 'When it stops working, whatever its use (ISO 8601 UTC): 8 hours after sign-in.' })
  expiresAt!: string;
}

/**
 * The merchant dashboard's sign-in (issue 28, item 8): the merchant key is presented once and a
 * short-lived session credential (vault kind dashboard_session, the key's mode in its scopes) is
 * issued, which the router accepts as that merchant. The browser never keeps the key.
 */
@Resolver()
export class DashboardSessionResolver {
  @Mutation(() => DashboardSession, {
    description:
      'Starts a dashboard session for the merchant whose API key calls (POST /dashboard/session sets it as a cookie). ' +
      'Errors: INVALID_API_KEY, FORBIDDEN (another credential, or a dashboard session: only the key starts one).',
  })
  async startDashboardSession(@Ctx() context: SubgraphContext): Promise<DashboardSession> {
    const merchant = requirePrincipal(context, ['merchant'], 'INVALID_API_KEY');
    // A session must not outlive itself by minting the next one: only the key signs in.
    if (merchant.scopes?.includes(DASHBOARD_SESSION_SCOPE))
      throw new GatewayError('FORBIDDEN', 'a dashboard session cannot start another; sign in with the merchant key');
    const expiresAt = new Date(Date.now() + DASHBOARD_SESSION_TTL_SECONDS * 1000);
    const token = await context.em.transactional(
      async (tx) =>
        vault.issue(tx, {
          kind: 'dashboard_session',
          ownerId: merchant.id,
          prefix: DASHBOARD_SESSION_PREFIX,
          scopes: [...(merchant.scopes ?? []), DASHBOARD_SESSION_SCOPE],
          expiresAt,
        }).raw,
    );
    return { token, merchantId: merchant.id, expiresAt: expiresAt.toISOString() };
  }

  @Mutation(() => Boolean, {
    description:
      'Ends a dashboard session (DELETE /dashboard/session): holding its secret is the right to end it. True when a live session ended; false when there was none.',
  })
  async endDashboardSession(
    @Arg('token', { description: 'The session secret (mds_…).' }) token: string,
    @Ctx() context: SubgraphContext,
  ): Promise<boolean> {
    const session = await vault.lookup(context.em, ['dashboard_session'], token);
    return session ? vault.revoke(context.em, session) : false;
  }
}
