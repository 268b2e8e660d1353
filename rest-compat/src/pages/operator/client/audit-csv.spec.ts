import { auditCsv } from './audit-csv';

describe('the audit log as CSV', () => {
  it('writes one row per entry under a header, changes as JSON, a formula in a cell made text', () => {
    const csv = auditCsv([
      {
        auditId: 'aud_1',
        at: '2026-11-29T05:00:00.000Z',
        actor: { kind: 'admin', id: null, name: 'ADMIN_KEY' },
        action: 'merchant.suspended',
        target: 'mer_1',
        changes: { status: { from: 'ACTIVE', to: 'SUSPENDED' }, reason: { to: '=HYPERLINK("x")' } },
        ip: '127.0.0.1',
        requestId: 'req_1',
      },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'audit_id,at,actor_kind,actor_id,actor_name,action,target,changes,ip,request_id',
      'aud_1,2026-11-29T05:00:00.000Z,admin,,ADMIN_KEY,merchant.suspended,mer_1,' +
        '"{""status"":{""from"":""ACTIVE"",""to"":""SUSPENDED""},""reason"":{""to"":""=HYPERLINK(\\""x\\"")""}}",127.0.0.1,req_1',
      '',
    ]);
  });

  it('guards a cell that starts a formula', () => {
    const csv = auditCsv([
      {
        auditId: 'aud_2',
        at: '2026-11-29T05:00:00.000Z',
        actor: { kind: 'merchant', id: '=cmd', name: null },
        action: 'merchant.updated',
        target: '@target',
        changes: {},
        ip: null,
        requestId: null,
      },
    ]);
    expect(csv.split('\r\n')[1]).toBe("aud_2,2026-11-29T05:00:00.000Z,merchant,'=cmd,,merchant.updated,'@target,{},,");
  });
});
