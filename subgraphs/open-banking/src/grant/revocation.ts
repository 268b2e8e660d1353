import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, parseInput, safeEqual, z } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import type { ClientAuthenticator } from '../client-auth/client-authentication';
import { TppEntity } from '../tpp/tpp.entity';

const present = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/** POST /ob/revoke's parameters (RFC 7009 2.1), with client authentication as at the token endpoint. */
export const revokeRules = z
  .object({
    token: present(256),
    tokenTypeHint: z
      .enum(['access_token', 'refresh_token'], { error: 'must be access_token or refresh_token' })
      .nullish(),
    clientId: present(64).nullish(),
    clientAssertionType: present(128).nullish(),
    clientAssertion: present(8192).nullish(),
  })
  .strict();

/** What can be revoked here: a consent's access and refresh tokens, and a fapi2 TPP's own token. */
const REVOCABLE = ['ob_access_token', 'ob_refresh_token', 'ob_client_token'] as const;

const refused = (detail: string) => new GatewayError('INVALID_CLIENT', detail);

/**
 * Token revocation (RFC 7009) for TPPs. The client authenticates as at the token endpoint: a fapi2
 * TPP with private_key_jwt (always: without it nothing is looked at), a spec TPP as the public
 * client it is (client_id, when sent, must be the token's). A token of another client is refused
 * (RFC 7009 2.1) and left alone; an unknown, expired or already revoked token is answered as
 * revoked (2.2: the client's intent holds). A refresh token takes its whole grant with it (2.1:
 * its access tokens), an access token only itself; the consent stays as it is (DELETE
 * /ob/consents/{id} ends it).
 */
export async function revokeToken(
  root: EntityManager,
  clients: ClientAuthenticator,
  input: unknown,
  now = new Date(),
): Promise<void> {
  const request = parseInput(revokeRules, input);
  const client = await clients.authenticate(root, request, now);
  const credential = await vault.lookup(root, [...REVOCABLE], request.token);
  if (!credential || credential.revokedAt) return;
  if (client) {
    if (credential.clientId !== client.id) throw refused('this token was not issued to the authenticated client');
  } else {
    const owner = credential.clientId
      ? await root.findOne(TppEntity, { id: credential.clientId }, { disableIdentityMap: true })
      : null;
    if (owner?.securityProfile === 'fapi2')
      throw refused(
        'client authentication required: this token belongs to a fapi2 client, which authenticates with private_key_jwt',
      );
    if (request.clientId && !safeEqual(request.clientId, credential.clientId ?? ''))
      throw refused('this token was not issued to this client_id');
  }
  await root.fork().transactional(async (tx) => {
    if (credential.kind === 'ob_refresh_token' && credential.family)
      await vault.revokeFamily(tx, credential.family, now);
    else await vault.revoke(tx, credential, now);
  });
}
