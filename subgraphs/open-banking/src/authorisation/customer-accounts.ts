import type { ServiceClient } from '@gateway/federation';

const CUSTOMER_ACCOUNTS = `query CustomerAccounts($bankHandle: String!, $bankCustomerRef: String!) {
  customerAccounts(bankHandle: $bankHandle, bankCustomerRef: $bankCustomerRef)
}`;

/**
 * The identity registry's list of a customer's accounts at one bank (contract "Consented
 * accounts": those registered under the approving customer's bank_customer_ref at the consent's
 * bank), asked through the router as the open-banking service. Never cached: approval fixes the
 * accounts of a consent for its whole life, so it reads the registry as it is now.
 */
export class CustomerAccountsClient {
  constructor(private readonly call: ServiceClient) {}

  async ibansOf(bankHandle: string, bankCustomerRef: string, requestId?: string): Promise<string[]> {
    return (
      await this.call<{ customerAccounts: string[] }>(CUSTOMER_ACCOUNTS, { bankHandle, bankCustomerRef }, requestId)
    ).customerAccounts;
  }
}
