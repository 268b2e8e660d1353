import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, newId, newSecret, parseInput, sealSecret } from '@gateway/kernel';
import { vault } from '@gateway/vault';
import { TppEntity } from './tpp.entity';
import type { RegisterTppInput } from './tpp.input';
import { registerTppRules } from './tpp.rules';
import type { OpenBankingSettings } from '../settings';

/** What TPP registration needs of the subgraph's settings. */
export type TppSettings = Pick<OpenBankingSettings, 'platformSecret' | 'production'>;

export interface RegisteredTpp {
  tpp: TppEntity;
  tppAccessToken: string;
  webhookSecret: string;
}

/** One wording for an unknown id and for another TPP's id, so the two cannot be told apart. */
export const tppNotFound = (id: string): GatewayError => new GatewayError('TPP_NOT_FOUND', `no TPP with id ${id}`);

export class TppService {
  constructor(private readonly settings: TppSettings) {}

  async find(em: EntityManager, id: string): Promise<TppEntity> {
    const tpp = await em.findOne(TppEntity, { id });
    if (!tpp) throw tppNotFound(id);
    return tpp;
  }

  async register(em: EntityManager, input: RegisterTppInput): Promise<RegisteredTpp> {
    const valid = parseInput(registerTppRules(this.settings.production), input);
    const webhookSecret = newSecret('whsec_');
    return em.transactional(async (tx) => {
      const tpp = tx.create(TppEntity, {
        id: newId('tpp'),
        name: valid.name,
        redirectUris: valid.redirectUris,
        webhookUrl: valid.webhookUrl,
        webhookSecretSealed: sealSecret(webhookSecret, this.settings.platformSecret),
        createdAt: new Date(),
      });
      const tppAccessToken = vault.issue(tx, { kind: 'tpp_key', ownerId: tpp.id, prefix: 'tpk_' }).raw;
      return { tpp, tppAccessToken, webhookSecret };
    });
  }
}
