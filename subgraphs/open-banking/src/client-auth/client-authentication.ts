import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeJwt } from 'jose';
import { GatewayError } from '@gateway/kernel';
import { TppEntity } from '../tpp/tpp.entity';
import { CLIENT_ASSERTION_TYPE, verifyClientAssertion, type AssertionAudience } from './client-assertion';
import { recordJti } from './seen-jti';

/** What a token request says about its client (RFC 6749 2.3, RFC 7521 4.2). */
export interface ClientCredentialsSent {
  clientId?: string | null;
  clientAssertionType?: string | null;
  clientAssertion?: string | null;
}

const invalidClient = (detail: string): GatewayError => new GatewayError('INVALID_CLIENT', detail);

/** The issuer and token endpoint of the authorization server at `publicBaseUrl` (no trailing slash). */
export const audienceOf = (publicBaseUrl: string): AssertionAudience => ({
  issuer: publicBaseUrl,
  tokenEndpoint: `${publicBaseUrl}/ob/token`,
});

/**
 * Client authentication at the token endpoint (RFC 7521 4.2, RFC 7523 3): a fapi2 TPP's
 * private_key_jwt, verified against the keys it registered; its jti recorded in PostgreSQL, so
 * the same assertion is refused the second time on any instance. A request without an assertion
 * is a public client's (the spec's flow): `authenticate` answers null and the grant decides
 * whether that will do (a fapi2 TPP's code, refresh token or client_credentials grant will not).
 */
export class ClientAuthenticator {
  constructor(readonly audience: AssertionAudience) {}

  /** The authenticated fapi2 TPP, or null when no assertion was sent; INVALID_CLIENT when one was and fails. */
  async authenticate(em: EntityManager, sent: ClientCredentialsSent, now = new Date()): Promise<TppEntity | null> {
    const { clientAssertionType: type, clientAssertion: assertion } = sent;
    if (!type && !assertion) return null;
    if (type !== CLIENT_ASSERTION_TYPE)
      throw invalidClient(`client_assertion_type: must be ${CLIENT_ASSERTION_TYPE} (private_key_jwt)`);
    if (!assertion) throw invalidClient('client_assertion: required with client_assertion_type');
    const tpp = await this.client(em, sent.clientId, assertion);
    // A public (spec) client has no keys: an assertion from it proves nothing and is refused
    // rather than ignored, so that a client believing it authenticates learns that it does not.
    if (tpp.securityProfile !== 'fapi2' || !tpp.jwks)
      throw invalidClient(`client ${tpp.id} is a public client (security_profile spec): it sends no client_assertion`);
    const verified = await verifyClientAssertion(assertion, tpp.id, tpp.jwks, this.audience, now);
    if (!(await recordJti(em, 'client_assertion', tpp.id, verified.jti, verified.expiresAt)))
      throw invalidClient('client_assertion: its jti was used before (a replayed assertion); sign a new one');
    // Said only to whoever holds the TPP's key.
    if (tpp.status === 'SUSPENDED')
      throw new GatewayError('TPP_SUSPENDED', `TPP ${tpp.id} is suspended by the operator`);
    return tpp;
  }

  /**
   * The client the assertion speaks for: client_id when sent, else the assertion's iss (RFC 7523
   * 3: iss and sub name the client). Read before the signature is checked, only to find the keys
   * to check it with; verifyClientAssertion then holds iss and sub to the client found here.
   */
  private async client(em: EntityManager, clientId: string | null | undefined, assertion: string): Promise<TppEntity> {
    let named = clientId ?? undefined;
    if (!named) {
      try {
        const claims = decodeJwt(assertion);
        named = typeof claims.iss === 'string' ? claims.iss : typeof claims.sub === 'string' ? claims.sub : undefined;
      } catch {
        throw invalidClient('client_assertion: not a signed JWT (JWS compact serialization)');
      }
    }
    if (!named) throw invalidClient('client_assertion: the iss claim is required');
    const tpp = named.length <= 64 ? await em.findOne(TppEntity, { id: named }, { disableIdentityMap: true }) : null;
    // One answer for an unknown client and a deleted one (RFC 7592): neither has keys any more.
    if (!tpp || tpp.status === 'DISABLED') throw invalidClient(`unknown client ${JSON.stringify(named.slice(0, 64))}`);
    return tpp;
  }
}
