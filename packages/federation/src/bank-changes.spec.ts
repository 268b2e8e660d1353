import { createMemoryBus } from '@gateway/events';
import { createLogger } from '@gateway/kernel';
import { forgetBankRoutingOnChange } from './bank-changes';
import { Directory } from './directory';
import type { ServiceClient } from './service-client';

const eventOf = (kind: string, bank: string) => ({
  id: `evt_${kind}_${bank}`,
  kind,
  aggregateType: 'bank',
  aggregateId: bank,
  createdAt: new Date().toISOString(),
  data: { bank_handle: bank },
});

describe('bank routing follows bank changes', () => {
  it("drops a cached bank routing on a bank event, so the next ask gets the rotated key; other events don't", async () => {
    let key = 'sik_old';
    const asked: unknown[] = [];
    const call = (async (_query: string, variables: Record<string, unknown> = {}) => {
      asked.push(variables);
      return { bankRouting: { handle: 'oasis', institutionCode: '002', internalKey: key } };
    }) as ServiceClient;
    // A long cache: only the event can make the new key go out before it ages.
    const directory = new Directory(call, { bankMs: 60_000, aliasMs: 0 });
    const bus = createMemoryBus();
    const subscription = await forgetBankRoutingOnChange(bus, directory, createLogger('spec', 'silent'));
    try {
      expect((await directory.bank({ handle: 'oasis' })).internalKey).toBe('sik_old');
      expect((await directory.bank({ institutionCode: '002' })).internalKey).toBe('sik_old');
      key = 'sik_new';
      expect((await directory.bank({ handle: 'oasis' })).internalKey).toBe('sik_old');
      expect(asked).toHaveLength(2);

      await bus.publish(eventOf('payment.completed', 'oasis'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await directory.bank({ handle: 'oasis' })).internalKey).toBe('sik_old');

      await bus.publish(eventOf('bank.internal_key_rotated', 'oasis'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await directory.bank({ handle: 'oasis' })).internalKey).toBe('sik_new');
      expect((await directory.bank({ institutionCode: '002' })).internalKey).toBe('sik_new');
      expect(asked).toHaveLength(4);
    } finally {
      await subscription.close();
      await bus.close();
    }
  });
});
