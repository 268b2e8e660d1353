import { createServiceClient } from '@gateway/federation';
import { BankCapabilitiesClient } from './banks/bank-capabilities';
import { ConsentService } from './consent/consent.service';
import { TokenService } from './grant/token.service';
import { DEFAULT_PUBLIC_BASE_URL, type OpenBankingSettings } from './settings';
import { TppService } from './tpp/tpp.service';

/** The open-banking subgraph's services, wired once: resolvers and background jobs share them. */
export interface OpenBankingModules {
  tpps: TppService;
  consents: ConsentService;
  tokens: TokenService;
}

export function createOpenBankingModules(settings: OpenBankingSettings): OpenBankingModules {
  const call = createServiceClient({ routerUrl: settings.routerUrl ?? (() => ''), platformSecret: settings.platformSecret, service: 'open-banking' });
  return {
    tpps: new TppService(settings),
    tokens: new TokenService(),
    consents: new ConsentService({ publicBaseUrl: (settings.publicBaseUrl ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '') }, new BankCapabilitiesClient(call)),
  };
}
