import { RidingRecords, type PendingRecord } from './delivery-records';
import type { AttemptRecord, ClaimedDelivery } from './delivery.repository';

/** The queue of delivered attempts' records: they ride on the next intake, or go together after a short wait. */
describe('riding records', () => {
  const delivery = (id: string): ClaimedDelivery => ({
    id,
    event_id: `evt_${id}`,
    audience_id: 'mer_1',
    endpoint_id: 'we_mer_1',
    aggregate_id: 'ops_1',
    payload: '{}',
    attempts: 0,
    lease_token: `token_${id}`,
  });
  const attempt: AttemptRecord = {
    number: 1,
    status: 'DELIVERED',
    url: 'http://127.0.0.1/hook',
    statusCode: 200,
    error: null,
    startedAt: new Date(),
    durationMs: 1,
    nextAttemptAt: null,
    deliveredAt: new Date(),
  };
  const alone = () => {
    const batches: string[][] = [];
    const write = async (records: PendingRecord[]) => {
      batches.push(records.map((record) => record.delivery.id));
      return new Map(records.map((record) => [record.delivery.id, { recorded: true, laterPending: false }]));
    };
    return { batches, write };
  };

  it('rides on a statement that takes them, and resolves with its outcome; nothing is written alone then', async () => {
    const { batches, write } = alone();
    const records = new RidingRecords(write, 20);
    const written = records.record(delivery('a'), attempt);
    const taken = records.take();
    expect(taken.map((record) => record.delivery.id)).toEqual(['a']);
    records.rode(taken, new Map([['a', { recorded: true, laterPending: true }]]));
    await expect(written).resolves.toEqual({ recorded: true, laterPending: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(batches).toEqual([]);
  });

  it('writes what found no ride together after the wait, at once when urgent, and again after a failed ride', async () => {
    const { batches, write } = alone();
    const records = new RidingRecords(write, 20);
    const late = [records.record(delivery('a'), attempt), records.record(delivery('b'), attempt)];
    expect(batches).toEqual([]);
    await Promise.all(late);
    expect(batches).toEqual([['a', 'b']]);

    await records.record(delivery('c'), attempt, true);
    expect(batches).toEqual([['a', 'b'], ['c']]);

    const retried = records.record(delivery('d'), attempt);
    records.putBack(records.take()); // the intake it rode on failed: nothing of it was written
    await expect(retried).resolves.toEqual({ recorded: true, laterPending: false });
    expect(batches.at(-1)).toEqual(['d']);
  });

  it('fails the waiting records when their own statement fails', async () => {
    const records = new RidingRecords(() => Promise.reject(new Error('database gone')), 5);
    await expect(records.record(delivery('a'), attempt)).rejects.toThrow('database gone');
  });
});
