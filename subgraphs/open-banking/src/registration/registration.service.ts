import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { audit, changesBetween, SECRET_ISSUED, SECRET_REMOVED, type AuditedBy } from '@gateway/audit';
import { GatewayError, ID_PREFIX, type Principal } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import { assertKeysImport, type PublicJwks } from '../signing-keys/jwks';
import { tppAuditFields } from '../tpp/tpp.audit';
import { TppEntity } from '../tpp/tpp.entity';
import type { TppService } from '../tpp/tpp.service';
import { parseMetadata, registrationRules, registrationUpdateRules } from './registration.rules';
import { verifySoftwareStatement } from './software-statement';

export const REGISTRATION_TOKEN_PREFIX = `${ID_PREFIX.registrationToken}_`;

export interface RegistrationSettings {
  /** OB_DIRECTORY_JWKS; unset: registration is not enabled. */
  directoryJwks?: PublicJwks;
}

export interface NewRegistration {
  tpp: TppEntity;
  registrationAccessToken: string;
  webhookSecret: string;
}

/**
 * RFC 7592 3: a registration access token that is not this client's (another client's, or one of
 * a client since deleted) gets 401 as an unknown client does, so it cannot probe which exist.
 */
const notThisClient = (): GatewayError =>
  new GatewayError('UNAUTHORIZED', 'the registration access token is not valid for this client');

/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) for fapi2 TPPs. A TPP
 * registers itself with a software statement the operator's directory signed: the directory
 * vouches for who it is (its software id and name), the TPP brings its public keys. It gets a
 * client id (its tpp id) and a registration access token, stored hashed in the vault like every
 * secret, for reading, replacing and deleting its registration; no tpk_.
 */
export class RegistrationService {
  constructor(
    private readonly settings: RegistrationSettings,
    private readonly tpps: TppService,
  ) {}

  get enabled(): boolean {
    return this.settings.directoryJwks !== undefined;
  }

  async register(em: EntityManager, input: unknown, by: AuditedBy): Promise<NewRegistration> {
    const directory = this.settings.directoryJwks;
    if (!directory)
      throw new GatewayError(
        'REGISTRATION_NOT_ENABLED',
        'dynamic client registration is not enabled: the operator has configured no directory (OB_DIRECTORY_JWKS); ask the operator to register the TPP (POST /ob/tpps)',
      );
    const request = parseMetadata(registrationRules(this.tpps.webhookTargets()), input);
    const statement = await verifySoftwareStatement(request.softwareStatement, directory);
    const allowed = statement.redirectUris;
    const foreign = allowed ? request.redirectUris.findIndex((uri) => !allowed.includes(uri)) : -1;
    if (foreign >= 0)
      throw new GatewayError(
        'INVALID_REDIRECT_URI',
        `redirect_uris[${foreign}]: not among the software statement's software_redirect_uris`,
      );
    await assertKeysImport(request.jwks, 'jwks', 'INVALID_CLIENT_METADATA');
    return em.transactional(async (tx) => {
      const fields = {
        name: statement.clientName,
        mode: request.mode,
        redirectUris: request.redirectUris,
        webhookUrl: request.webhookUrl,
        securityProfile: 'fapi2' as const,
        jwks: request.jwks,
        softwareId: statement.softwareId,
      };
      const { tpp, webhookSecret } = this.tpps.create(tx, fields, by, { registration_access_token: SECRET_ISSUED });
      const token = vault.issue(tx, {
        kind: 'ob_registration_token',
        ownerId: tpp.id,
        clientId: tpp.id,
        prefix: REGISTRATION_TOKEN_PREFIX,
      });
      return { tpp, registrationAccessToken: token.raw, webhookSecret };
    });
  }

  /** RFC 7592 2.1: the client's registration, for the holder of its registration access token. */
  async read(em: EntityManager, caller: Principal, clientId: string): Promise<TppEntity> {
    return this.own(em, caller, clientId);
  }

  /** RFC 7592 2.2: replaces the metadata (keys, redirect URIs, webhook URL); the name and software id stay the directory's. */
  async update(
    em: EntityManager,
    caller: Principal,
    clientId: string,
    input: unknown,
    by: AuditedBy,
  ): Promise<TppEntity> {
    const request = parseMetadata(registrationUpdateRules(this.tpps.webhookTargets()), input);
    if (request.clientId != null && request.clientId !== clientId)
      throw new GatewayError('INVALID_CLIENT_METADATA', 'client_id: must be the client_id of the path');
    await assertKeysImport(request.jwks, 'jwks', 'INVALID_CLIENT_METADATA');
    return em.transactional(async (tx) => {
      const tpp = await this.own(tx, caller, clientId, true);
      const before = tppAuditFields(tpp);
      tpp.jwks = request.jwks;
      tpp.redirectUris = request.redirectUris;
      tpp.webhookUrl = request.webhookUrl;
      const changes = changesBetween(before, tppAuditFields(tpp));
      audit.record(tx, { actor: by.actor, action: 'tpp.updated', target: tpp.id, changes }, by.logger);
      return tpp;
    });
  }

  /**
   * RFC 7592 2.3: the client is deleted for good. The TPP stays as a record (its consents and
   * orders name it) but is DISABLED, and every credential it owns or was issued (its
   * registration and client tokens, the codes and tokens of its consents) is revoked at once.
   */
  async remove(em: EntityManager, caller: Principal, clientId: string, by: AuditedBy): Promise<void> {
    await em.transactional(async (tx) => {
      const tpp = await this.own(tx, caller, clientId, true);
      const before = tpp.status;
      tpp.status = 'DISABLED';
      await vault.revokeEverythingOf(tx, tpp.id);
      const changes = { status: { from: before, to: 'DISABLED' }, registration_access_token: SECRET_REMOVED };
      audit.record(tx, { actor: by.actor, action: 'tpp.disabled', target: tpp.id, changes }, by.logger);
    });
  }

  /** The caller's own registration: a registration token's TPP, registered dynamically and not deleted. */
  private async own(em: EntityManager, caller: Principal, clientId: string, lock = false): Promise<TppEntity> {
    if (caller.kind !== 'tpp_registration' || caller.id !== clientId) throw notThisClient();
    const tpp = await em.findOne(
      TppEntity,
      { id: clientId },
      lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : { disableIdentityMap: true },
    );
    if (!tpp || tpp.status === 'DISABLED' || tpp.softwareId === null) throw notThisClient();
    return tpp;
  }
}
