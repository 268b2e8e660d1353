import type { ServiceClient } from '@gateway/federation';

/** What a consent needs to know of its bank: the banks subgraph's capabilities and status. */
export interface ObBank {
  handle: string;
  /** ACTIVE or SUSPENDED. */
  status: string;
  obEnabled: boolean;
  obScopesSupported: string[];
  maxConsentExpiryDays: number;
  /** Payment orders above this (minor units) wait for SCA. */
  scaExemptionLimit: number;
  /** Exempted orders a consent may make since its last SCA. */
  scaExemptionMaxCount: number;
  /** Their cumulative amount (minor units of the order's currency) since the last SCA. */
  scaExemptionCumulativeLimit: number;
}

const OB_BANK = `query ObBank($handle: String!) {
  bank(handle: $handle) { handle status }
  bankCapabilities(handle: $handle) { obEnabled obScopesSupported maxConsentExpiryDays scaExemptionLimit scaExemptionMaxCount scaExemptionCumulativeLimit }
}`;

/**
 * The bank registry, asked through the router as the `open-banking` service (a subgraph never
 * reads another's schema). Not cached: a consent is created rarely, and a bank that turns Open
 * Banking off or lowers its maximum expiry must be obeyed from its next consent on.
 * BANK_NOT_REGISTERED passes through.
 */
export class BankCapabilitiesClient {
  constructor(private readonly call: ServiceClient) {}

  async find(handle: string, requestId?: string): Promise<ObBank> {
    const answer = await this.call<{
      bank: { handle: string; status: string };
      bankCapabilities: Omit<ObBank, 'handle' | 'status'>;
    }>(OB_BANK, { handle }, requestId);
    return { ...answer.bank, ...answer.bankCapabilities };
  }
}
