import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, invalid, newId, parseInput, type Principal } from '@gateway/kernel';
import type { BankCapabilitiesClient, ObBank } from '../banks/bank-capabilities';
import { TppEntity } from '../tpp/tpp.entity';
import { ConsentEntity } from './consent.entity';
import type { CreateConsentInput } from './consent.input';
import { createConsent, moveConsent } from './consent.moves';
import { assertS256Method, consentPageRules, createConsentRules, PAGE_SIZE_DEFAULT } from './consent.rules';
import { assertClientScopes, type TppCaller } from '../client-auth/client-scopes';

export interface ConsentSettings {
  /** Base of consent_url, without a trailing slash. */
  publicBaseUrl: string;
}

/** One wording for an unknown id and another TPP's id, so the two cannot be told apart. */
export const consentNotFound = (id: string): GatewayError => new GatewayError('CONSENT_NOT_FOUND', `no consent ${id}`);

export interface ConsentPage {
  consents: ConsentEntity[];
  hasMore: boolean;
}

const DAY_MS = 86_400_000;

export class ConsentService {
  constructor(
    readonly settings: ConsentSettings,
    private readonly banks: BankCapabilitiesClient,
  ) {}

  /**
   * Creates an AWAITING_AUTHORISATION consent. Checked before anything is written: the request's
   * shape, the PKCE method (S256 only), the redirect URI against the TPP's registered ones
   * (exact string match, RFC 6749 3.1.2.3), then the bank: registered, ACTIVE and ob_enabled,
   * supporting every requested scope, and allowing expiry_days.
   */
  async create(
    em: EntityManager,
    caller: TppCaller,
    input: CreateConsentInput,
    requestId?: string,
  ): Promise<ConsentEntity> {
    const tppId = caller.id;
    const raw = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
    assertS256Method(raw.codeChallengeMethod);
    const request = parseInput(createConsentRules, raw);
    const { tpp, bank } = await this.admit(em, caller, request, requestId);
    const unsupported = request.scopes.filter((scope) => !bank.obScopesSupported.includes(scope));
    if (unsupported.length > 0)
      throw invalid(
        'scopes',
        `${unsupported.join(', ')} not supported by bank ${bank.handle} (supported: ${bank.obScopesSupported.join(', ') || 'none'})`,
      );
    if (request.expiryDays > bank.maxConsentExpiryDays)
      throw invalid('expiry_days', `must be at most ${bank.maxConsentExpiryDays} at bank ${bank.handle}`);

    const now = new Date();
    return em.fork().transactional(async (tx) =>
      createConsent(
        tx,
        {
          id: newId('consent'),
          tppId,
          livemode: tpp.mode === 'live',
          bankHandle: bank.handle,
          scopes: request.scopes,
          redirectUri: request.redirectUri,
          state: request.state,
          codeChallenge: request.codeChallenge,
          codeChallengeMethod: 'S256',
          expiryDays: request.expiryDays,
          expiresAt: new Date(now.getTime() + request.expiryDays * DAY_MS),
        },
        now,
      ),
    );
  }

  /**
   * What every consent request must pass whatever its kind: its TPP (and a fapi2 TPP's client
   * scopes), the redirect URI against the TPP's registered ones (exact string match, RFC 6749
   * 3.1.2.3), and the bank: registered, ACTIVE and ob_enabled.
   */
  async admit(
    em: EntityManager,
    caller: TppCaller,
    request: { bankHandle: string; redirectUri: string; scopes: string[] },
    requestId?: string,
  ): Promise<{ tpp: TppEntity; bank: ObBank }> {
    const tpp = await em.findOne(TppEntity, { id: caller.id });
    if (!tpp) throw new GatewayError('UNAUTHORIZED', 'the TPP of this token no longer exists');
    assertClientScopes(tpp, caller, request.scopes);
    if (!tpp.redirectUris.includes(request.redirectUri))
      throw invalid('redirect_uri', 'must equal one of the redirect URIs registered for this TPP');
    const bank = await this.banks.find(request.bankHandle, requestId);
    if (!bank.obEnabled || bank.status !== 'ACTIVE')
      throw new GatewayError('BANK_NOT_PARTICIPATING', `bank ${bank.handle} does not take part in Open Banking`);
    return { tpp, bank };
  }

  /**
   * The consent a caller may read: a TPP token's own consents, or the one consent an access token
   * was issued for (contract: GET /ob/consents/{id} takes either). Anything else is
   * CONSENT_NOT_FOUND, like an unknown id.
   */
  async findForCaller(em: EntityManager, principal: Principal & { id: string }, id: string): Promise<ConsentEntity> {
    if (principal.kind === 'tpp') return this.findOwn(em, principal.id, id);
    const consent =
      principal.kind === 'ob_token' && principal.consentId === id ? await em.findOne(ConsentEntity, { id }) : null;
    if (!consent) throw consentNotFound(id);
    return consent;
  }

  /** A TPP's own consent; another TPP's is CONSENT_NOT_FOUND, like an unknown one. */
  async findOwn(em: EntityManager, tppId: string, id: string): Promise<ConsentEntity> {
    const consent = await em.findOne(ConsentEntity, { id });
    if (!consent || consent.tppId !== tppId) throw consentNotFound(id);
    return consent;
  }

  /**
   * A page of the TPP's consents, newest first, continuing strictly after the cursor consent
   * (keyset on created_at, id): consents created meanwhile land before the first page and never
   * shift or repeat later ones.
   */
  async list(
    em: EntityManager,
    tppId: string,
    args: { first?: number | null; after?: string | null },
  ): Promise<ConsentPage> {
    const page = parseInput(consentPageRules, args);
    const size = page.first ?? PAGE_SIZE_DEFAULT;
    let where: object = { tppId };
    if (page.after) {
      const cursor = await em.findOne(ConsentEntity, { id: page.after, tppId });
      if (!cursor) throw invalid('after', 'not a cursor of this list (a consent id from it)');
      where = {
        tppId,
        $or: [{ createdAt: { $lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { $lt: cursor.id } }],
      };
    }
    const rows = await em.find(ConsentEntity, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: size + 1 });
    return { consents: rows.slice(0, size), hasMore: rows.length > size };
  }

  /**
   * Moves consents past expires_at (awaiting or authorised) to EXPIRED with consent.expired, a
   * batch per transaction; `skip locked` lets several instances share the work without waiting.
   */
  async expireDue(root: EntityManager, now = new Date(), batch = 100): Promise<number> {
    return root.fork().transactional(async (tx) => {
      const due = await tx.find(
        ConsentEntity,
        { status: { $in: ['AWAITING_AUTHORISATION', 'AUTHORISED'] }, expiresAt: { $lte: now } },
        {
          orderBy: { expiresAt: 'asc' },
          limit: batch,
          lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
          disableIdentityMap: true,
        },
      );
      let expired = 0;
      for (const consent of due) if (await moveConsent(tx, consent, 'expiry_reached', now)) expired += 1;
      return expired;
    });
  }
}
