import { request, type Dispatcher } from 'undici';
import { timeoutSignal } from '@gateway/kernel';
import { bankErrors } from '../errors';

export interface GatewayConfig {
  /** Base address of the gateway (rest-compat), e.g. http://localhost:8080. */
  url: string;
  /** This bank's X-Service-Bank-Key (sbk_<handle>_…), for alias enrollment. */
  bankKey?: string;
}

/** The credit-confirmed body, as a bank core sends it to the gateway (the spec's callback fields). */
export interface CreditConfirmedBody {
  payment_reference: string;
  session_id: string;
  creditor_iban: string;
  amount: number;
  currency: string;
  rrn: string;
}

export interface GatewayAnswer {
  status: number;
  body: unknown;
}

/**
 * How the sandbox bank reaches the gateway: the identity claim (alias enrollment) and the
 * credit-confirmed callback. The configuration can arrive after start, once the bank is
 * registered at the gateway and has its keys.
 */
export class GatewayLink {
  private config: GatewayConfig | null = null;

  constructor(
    private readonly internalKey: () => string,
    private readonly dispatcher?: Dispatcher,
  ) {}

  configure(config: GatewayConfig | null): void {
    this.config = config
      ? { url: config.url.replace(/\/+$/, ''), ...(config.bankKey ? { bankKey: config.bankKey } : {}) }
      : null;
  }

  configured(): GatewayConfig | null {
    return this.config;
  }

  /** POST /v1/identity/claim with the bank key; the gateway's answer comes back as is. */
  async claimAlias(
    body: {
      npt_handle: string;
      iban: string;
      customer_display_name: string;
      bank_customer_ref: string;
    },
    requestId?: string,
  ): Promise<GatewayAnswer> {
    const config = this.config;
    if (!config?.bankKey) throw bankErrors.gatewayNotConfigured();
    return this.post(`${config.url}/v1/identity/claim`, { 'x-service-bank-key': config.bankKey }, body, requestId);
  }

  /** POST /service/callbacks/v1/payment/credit-confirmed with this bank's internal key. */
  async confirmCredit(body: CreditConfirmedBody, signal?: AbortSignal): Promise<GatewayAnswer> {
    const config = this.config;
    if (!config) throw bankErrors.gatewayNotConfigured();
    return this.post(
      `${config.url}/service/callbacks/v1/payment/credit-confirmed`,
      { 'x-service-internal-key': this.internalKey() },
      body,
      undefined,
      signal,
    );
  }

  private async post(
    url: string,
    auth: Record<string, string>,
    body: unknown,
    requestId?: string,
    signal?: AbortSignal,
  ): Promise<GatewayAnswer> {
    // The answer's body is read under the same deadline.
    const deadline = timeoutSignal(10_000);
    try {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth, ...(requestId ? { 'x-request-id': requestId } : {}) },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
        ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
      }).catch((error: Error) => {
        throw bankErrors.gatewayUnreachable(error.message);
      });
      return { status: response.statusCode, body: jsonOrText(await response.body.text()) };
    } finally {
      deadline.clear();
    }
  }
}

/** An answer's body: its JSON, or the text as is when it is not JSON; null when empty. */
function jsonOrText(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}
