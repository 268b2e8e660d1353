import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { RunningService } from '@gateway/federation';
import { subgraphClient, TEST_PLATFORM_SECRET } from '@gateway/federation/testing';
import type { Principal } from '@gateway/kernel';
import { Kind, parse, print, type ObjectTypeDefinitionNode } from 'graphql';
import { composeIBAN, friendlyFormatIBAN } from 'ibantools';
import { start } from '../service';
import { maskDisplayName } from './alias.type';

const iban = (institution: string, account: string) =>
  composeIBAN({ countryCode: 'LY', bban: `${institution}001${account.padStart(15, '0')}` })!;
const bank = (handle: string, institutionCode: string): Principal => ({
  kind: 'bank',
  id: handle,
  scopes: [`institution:${institutionCode}`],
});
const alpha = bank('alpha', '101');
const beta = bank('beta', '102');
const admin: Principal = { kind: 'admin' };

const CLAIM = `mutation($input: ClaimAliasInput!) {
  claimAlias(input: $input) { handle iban bankHandle institutionCode customerDisplayName status createdAt deactivatedAt bank { handle } }
}`;
const RESOLVE = `query($alias: String, $phone: String, $iban: String) {
  resolveAlias(alias: $alias, phone: $phone, iban: $iban) { alias iban bankHandle institutionCode customerDisplayName bank { handle } }
}`;
const ALIAS = `query($handle: String!) { alias(handle: $handle) { handle status deactivatedAt customerDisplayName } }`;
const PRIVATE = `query($handle: String!) { alias(handle: $handle) { handle bankCustomerRef phone } }`;
const DEACTIVATE = `mutation($handle: String!) { deactivateAlias(handle: $handle) { handle status deactivatedAt } }`;

const claimInput = (handle: string, patch: Record<string, unknown> = {}) => ({
  nptHandle: handle,
  iban: iban('101', handle.length.toString()),
  customerDisplayName: 'Ali Ben Omar',
  bankCustomerRef: `cust-${handle}`,
  ...patch,
});

describe('identity subgraph: alias directory', () => {
  let db: Database;
  let service: RunningService;
  let client: ReturnType<typeof subgraphClient>;
  const rows = (where: Record<string, unknown> = {}) => db.knex('identity.aliases').where(where);
  const claim = (handle: string, patch: Record<string, unknown> = {}, principal: Principal = alpha) =>
    client.execute(CLAIM, { input: claimInput(handle, patch) }, principal).then((data) => data.claimAlias);
  const detailOf = async (query: string, variables: Record<string, unknown>, principal?: Principal) => {
    const result = await client.attempt(query, variables, principal);
    return { code: result.errors?.[0]?.extensions?.code, detail: result.errors?.[0]?.extensions?.detail ?? '' };
  };

  beforeAll(async () => {
    db = await openTestDatabase();
    service = await start({ db, platformSecret: TEST_PLATFORM_SECRET, production: false });
    client = subgraphClient(service.graphqlUrl, TEST_PLATFORM_SECRET);
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  describe('claimAlias', () => {
    it('enrolls an account at the calling bank, normalises the IBAN and masks the name', async () => {
      const account = iban('101', '7');
      const claimed = await claim('ali.ben', {
        iban: friendlyFormatIBAN(account)!.toLowerCase(),
        phone: '+218912345678',
      });
      expect(claimed).toMatchObject({
        handle: 'ali.ben',
        iban: account,
        bankHandle: 'alpha',
        institutionCode: '101',
        customerDisplayName: 'A*** B*** O***',
        status: 'ACTIVE',
        deactivatedAt: null,
        bank: { handle: 'alpha' },
      });
      expect(new Date(claimed.createdAt).toISOString()).toBe(claimed.createdAt);
      const [row] = await rows({ handle: 'ali.ben' });
      expect(row).toMatchObject({
        iban: account,
        customer_display_name: 'Ali Ben Omar',
        bank_customer_ref: 'cust-ali.ben',
        phone: '+218912345678',
        status: 'ACTIVE',
      });
    });

    it('refuses malformed handles with 400 HANDLE_INVALID and writes nothing', async () => {
      const bad = ['ab', 'a'.repeat(33), '1abc', '_abc', '.abc', 'Ali', 'ali ben', 'ali@alpha', 'ali!', 'alí', ''];
      for (const handle of bad) {
        const { code, detail } = await detailOf(CLAIM, { input: claimInput(handle) }, alpha);
        expect([handle, code]).toEqual([handle, 'HANDLE_INVALID']);
        expect(detail).toMatch(/^npt_handle:/);
      }
      expect(await rows().whereIn('handle', bad)).toHaveLength(0);
    });

    it('accepts the handle rule at its edges: 3 and 32 characters, digits, ".", "_" and "-"', async () => {
      for (const handle of ['abc', `a${'b'.repeat(31)}`, 'z9.x_y-w']) {
        expect((await claim(handle)).handle).toBe(handle);
      }
    });

    it('validates every other field and writes nothing on refused input', async () => {
      const cases: Array<[Record<string, unknown>, string, string?]> = [
        [{ iban: 'LY00002048000020100120361' }, 'iban', 'IBAN_INVALID'],
        [{ iban: 'not an iban' }, 'iban', 'IBAN_INVALID'],
        [{ iban: iban('102', '1') }, 'iban', 'IBAN_NOT_AT_BANK'], // beta's account: not at the claiming bank
        [{ iban: 'DE89370400440532013000' }, 'iban', 'IBAN_NOT_AT_BANK'], // valid, but not in the national directory
        [{ customerDisplayName: '   ' }, 'customer_display_name'],
        [{ customerDisplayName: 'x'.repeat(101) }, 'customer_display_name'],
        [{ bankCustomerRef: '' }, 'bank_customer_ref'],
        [{ bankCustomerRef: 'r'.repeat(65) }, 'bank_customer_ref'],
        [{ phone: '0912345678' }, 'phone'],
        [{ phone: '+218 91 234 5678' }, 'phone'],
      ];
      for (const [patch, field, expectedCode = 'VALIDATION_ERROR'] of cases) {
        const { code, detail } = await detailOf(CLAIM, { input: claimInput('refused', patch) }, alpha);
        expect([patch, code]).toEqual([patch, expectedCode]);
        expect(detail).toMatch(new RegExp(`^${field}:`));
      }
      expect(await rows({ handle: 'refused' })).toHaveLength(0);
    });

    it('refuses an IBAN at another bank even with the right format, naming the institution', async () => {
      const { detail } = await detailOf(CLAIM, { input: claimInput('other.bank', { iban: iban('102', '5') }) }, alpha);
      expect(detail).toBe('iban: not an account at alpha (institution code 102)');
      expect((await claim('other.bank', { iban: iban('102', '5') }, beta)).bankHandle).toBe('beta');
    });

    it('is for bank keys only', async () => {
      const input = claimInput('no.key');
      expect(await client.errorCode(CLAIM, { input })).toBe('INVALID_BANK_KEY');
      expect(await client.errorCode(CLAIM, { input }, { kind: 'merchant', id: 'mer_1', scopes: ['test'] })).toBe(
        'FORBIDDEN',
      );
      expect(await client.errorCode(CLAIM, { input }, admin)).toBe('FORBIDDEN');
      expect(await rows({ handle: 'no.key' })).toHaveLength(0);
    });

    it('answers 409 HANDLE_TAKEN for a claimed handle, whichever bank asks', async () => {
      await claim('taken');
      expect(await client.errorCode(CLAIM, { input: claimInput('taken') }, alpha)).toBe('HANDLE_TAKEN');
      expect(await client.errorCode(CLAIM, { input: claimInput('taken', { iban: iban('102', '9') }) }, beta)).toBe(
        'HANDLE_TAKEN',
      );
      expect(await rows({ handle: 'taken' })).toEqual([expect.objectContaining({ bank_handle: 'alpha' })]);
    });

    it('lets exactly one of 5 concurrent claims of one handle win', async () => {
      const attempts = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          client.attempt(
            CLAIM,
            { input: claimInput('race', { iban: iban('101', `90${n}`), bankCustomerRef: `c${n}` }) },
            alpha,
          ),
        ),
      );
      const codes = attempts.map((result) => result.errors?.[0]?.extensions?.code ?? 'OK').sort();
      expect(codes).toEqual(['HANDLE_TAKEN', 'HANDLE_TAKEN', 'HANDLE_TAKEN', 'HANDLE_TAKEN', 'OK']);
      expect(await rows({ handle: 'race' })).toHaveLength(1);
    });

    it('keeps a phone number on at most one active alias, also under concurrent claims', async () => {
      await claim('phone.one', { phone: '+218920000001' });
      const { code, detail } = await detailOf(
        CLAIM,
        { input: claimInput('phone.two', { phone: '+218920000001' }) },
        alpha,
      );
      expect([code, detail]).toEqual(['PHONE_TAKEN', 'phone: already linked to another active alias']);

      const attempts = await Promise.all(
        ['p.a', 'p.b', 'p.c'].map((handle) =>
          client.attempt(CLAIM, { input: claimInput(handle, { phone: '+218920000002' }) }, alpha),
        ),
      );
      const outcomes = attempts.map((result) => result.errors?.[0]?.extensions?.detail ?? 'OK').sort();
      expect(outcomes).toEqual([
        'OK',
        'phone: already linked to another active alias',
        'phone: already linked to another active alias',
      ]);
      expect(await rows({ phone: '+218920000002' })).toHaveLength(1);
    });
  });

  describe('resolveAlias', () => {
    const account = iban('101', '4242');
    beforeAll(async () => {
      await claim('sara', { iban: account, customerDisplayName: 'Sara Al Mabrouk', phone: '+218930000001' });
    });
    const expected = {
      alias: 'sara',
      iban: account,
      bankHandle: 'alpha',
      institutionCode: '101',
      customerDisplayName: 'S*** A*** M***',
      bank: { handle: 'alpha' },
    };

    it('resolves publicly by handle, handle@bank, phone and IBAN', async () => {
      for (const variables of [
        { alias: 'sara' },
        { alias: 'sara@alpha' },
        { alias: ' Sara@Alpha ' },
        { phone: '+218930000001' },
        { iban: friendlyFormatIBAN(account) },
      ]) {
        const { resolveAlias } = await client.execute(RESOLVE, variables);
        expect([variables, resolveAlias]).toEqual([variables, expected]);
      }
    });

    it('answers ALIAS_NOT_FOUND for an alias at another bank, an unknown handle, phone or IBAN', async () => {
      expect(await client.errorCode(RESOLVE, { alias: 'sara@beta' })).toBe('ALIAS_NOT_FOUND');
      expect(await client.errorCode(RESOLVE, { alias: 'nobody' })).toBe('ALIAS_NOT_FOUND');
      expect(await client.errorCode(RESOLVE, { phone: '+218939999999' })).toBe('ALIAS_NOT_FOUND');
      expect(await client.errorCode(RESOLVE, { iban: iban('101', '999999') })).toBe('ALIAS_NOT_FOUND');
    });

    it('takes exactly one well-formed argument', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'alias'],
        [{ alias: 'sara', phone: '+218930000001' }, 'phone'],
        [{ alias: 'sara', iban: account }, 'iban'],
        [{ alias: 'sara@alpha@beta' }, 'alias'],
        [{ alias: 'sara@' }, 'alias'],
        [{ alias: '' }, 'alias'],
        [{ phone: '218930000001' }, 'phone'],
        [{ iban: 'LY00002048000020100120361' }, 'iban'],
      ];
      for (const [variables, field] of cases) {
        const { code, detail } = await detailOf(RESOLVE, variables);
        expect([variables, code]).toEqual([variables, 'VALIDATION_ERROR']);
        expect(detail).toMatch(new RegExp(`^${field}:`));
      }
    });

    it('returns the most recent active alias of an IBAN that carries several handles', async () => {
      const shared = iban('101', '5555');
      await claim('zed.new', { iban: shared, customerDisplayName: 'New Name' });
      await claim('amy.old', { iban: shared, customerDisplayName: 'Old Name' });
      // Make the claim order unambiguous regardless of clock resolution: amy.old is a minute older.
      await rows({ handle: 'amy.old' }).update({ created_at: new Date(Date.now() - 60_000) });
      expect((await client.execute(RESOLVE, { iban: shared })).resolveAlias.alias).toBe('zed.new');

      await client.execute(DEACTIVATE, { handle: 'zed.new' }, alpha);
      expect((await client.execute(RESOLVE, { iban: shared })).resolveAlias).toMatchObject({
        alias: 'amy.old',
        customerDisplayName: 'O*** N***',
      });

      await client.execute(DEACTIVATE, { handle: 'amy.old' }, alpha);
      expect(await client.errorCode(RESOLVE, { iban: shared })).toBe('ALIAS_INACTIVE');
    });
  });

  describe('aliasRouting (platform services)', () => {
    const ROUTING = `query($alias: String, $iban: String) { aliasRouting(alias: $alias, iban: $iban) { handle iban bankHandle institutionCode bankCustomerRef status } }`;
    const service: Principal = { kind: 'service', id: 'payments' };
    const account = iban('101', '7171');
    beforeAll(async () => {
      await claim('rita', { iban: account, bankCustomerRef: 'cust-rita-1' });
    });

    it('gives a service the bank customer reference, by alias, alias@bank and IBAN', async () => {
      const expected = {
        handle: 'rita',
        iban: account,
        bankHandle: 'alpha',
        institutionCode: '101',
        bankCustomerRef: 'cust-rita-1',
        status: 'ACTIVE',
      };
      for (const variables of [{ alias: 'rita' }, { alias: 'Rita@alpha' }, { iban: friendlyFormatIBAN(account) }]) {
        expect([variables, (await client.execute(ROUTING, variables, service)).aliasRouting]).toEqual([
          variables,
          expected,
        ]);
      }
    });

    it('returns an INACTIVE alias with its status instead of refusing it', async () => {
      await claim('gone.soon', { iban: iban('101', '7172') });
      await client.execute(DEACTIVATE, { handle: 'gone.soon' }, alpha);
      expect((await client.execute(ROUTING, { alias: 'gone.soon' }, service)).aliasRouting).toMatchObject({
        handle: 'gone.soon',
        status: 'INACTIVE',
      });
      expect((await client.execute(ROUTING, { iban: iban('101', '7172') }, service)).aliasRouting).toMatchObject({
        handle: 'gone.soon',
        status: 'INACTIVE',
      });
    });

    it('answers ALIAS_NOT_FOUND and VALIDATION_ERROR like the public resolution, and refuses every other caller', async () => {
      expect(await client.errorCode(ROUTING, { alias: 'rita@beta' }, service)).toBe('ALIAS_NOT_FOUND');
      expect(await client.errorCode(ROUTING, { iban: iban('101', '999998') }, service)).toBe('ALIAS_NOT_FOUND');
      expect(await client.errorCode(ROUTING, { alias: 'rita', iban: account }, service)).toBe('VALIDATION_ERROR');
      expect(await client.errorCode(ROUTING, { alias: 'rita' })).toBe('UNAUTHORIZED');
      for (const principal of [alpha, admin, { kind: 'merchant', id: 'mer_x' } as Principal]) {
        expect(await client.errorCode(ROUTING, { alias: 'rita' }, principal)).toBe('FORBIDDEN');
      }
    });
  });

  describe('customerAccounts (platform services)', () => {
    const ACCOUNTS = `query($bankHandle: String!, $bankCustomerRef: String!) { customerAccounts(bankHandle: $bankHandle, bankCustomerRef: $bankCustomerRef) }`;
    const service: Principal = { kind: 'service', id: 'open-banking' };
    const [first, second] = [iban('101', '8101'), iban('101', '8102')];
    beforeAll(async () => {
      await claim('olga', { iban: first, bankCustomerRef: 'cust-olga' });
      await claim('olga.savings', { iban: second, bankCustomerRef: 'cust-olga' });
      // A second handle on the same account, a released one, and another customer's.
      await claim('olga.again', { iban: first, bankCustomerRef: 'cust-olga' });
      await claim('olga.old', { iban: iban('101', '8103'), bankCustomerRef: 'cust-olga' });
      await client.execute(DEACTIVATE, { handle: 'olga.old' }, alpha);
      await claim('not.olga', { iban: iban('101', '8104'), bankCustomerRef: 'cust-someone' });
      // The same reference at another bank is another customer.
      await claim('olga.beta', { iban: iban('102', '8105'), bankCustomerRef: 'cust-olga' }, beta);
    });

    it("lists the customer's ACTIVE accounts at that bank, each IBAN once, oldest claim first", async () => {
      expect(
        (await client.execute(ACCOUNTS, { bankHandle: 'alpha', bankCustomerRef: 'cust-olga' }, service))
          .customerAccounts,
      ).toEqual([first, second]);
      expect(
        (await client.execute(ACCOUNTS, { bankHandle: 'beta', bankCustomerRef: 'cust-olga' }, service))
          .customerAccounts,
      ).toEqual([iban('102', '8105')]);
      expect(
        (await client.execute(ACCOUNTS, { bankHandle: 'alpha', bankCustomerRef: 'cust-nobody' }, service))
          .customerAccounts,
      ).toEqual([]);
    });

    it('answers platform services only', async () => {
      const variables = { bankHandle: 'alpha', bankCustomerRef: 'cust-olga' };
      expect(await client.errorCode(ACCOUNTS, variables)).toBe('UNAUTHORIZED');
      for (const principal of [alpha, admin, { kind: 'tpp', id: 'tpp_x' } as Principal])
        expect(await client.errorCode(ACCOUNTS, variables, principal)).toBe('FORBIDDEN');
    });
  });

  describe('alias and its restricted fields', () => {
    beforeAll(async () => {
      await claim('omar', { customerDisplayName: 'omar  el   mukhtar', phone: '+218940000001' });
    });

    it('is public with the name masked', async () => {
      const { alias } = await client.execute(ALIAS, { handle: 'omar' });
      expect(alias).toEqual({
        handle: 'omar',
        status: 'ACTIVE',
        deactivatedAt: null,
        customerDisplayName: 'O*** E*** M***',
      });
      expect(await client.errorCode(ALIAS, { handle: 'ghost' })).toBe('ALIAS_NOT_FOUND');
    });

    it('shows bankCustomerRef and phone to the owning bank only', async () => {
      expect((await client.execute(PRIVATE, { handle: 'omar' }, alpha)).alias).toEqual({
        handle: 'omar',
        bankCustomerRef: 'cust-omar',
        phone: '+218940000001',
      });
      expect(await client.errorCode(PRIVATE, { handle: 'omar' })).toBe('INVALID_BANK_KEY');
      expect(await client.errorCode(PRIVATE, { handle: 'omar' }, beta)).toBe('FORBIDDEN');
      expect(await client.errorCode(PRIVATE, { handle: 'omar' }, admin)).toBe('FORBIDDEN');
      expect(await client.errorCode(`{ alias(handle: "omar") { phone } }`, {}, beta)).toBe('FORBIDDEN');
    });
  });

  describe('deactivateAlias', () => {
    beforeAll(async () => {
      await claim('leaving', { iban: iban('101', '8080'), phone: '+218950000001' });
    });

    it('is refused to another bank, to anonymous callers and for unknown handles', async () => {
      expect(await client.errorCode(DEACTIVATE, { handle: 'leaving' }, beta)).toBe('FORBIDDEN');
      expect(await client.errorCode(DEACTIVATE, { handle: 'leaving' })).toBe('INVALID_BANK_KEY');
      expect(await client.errorCode(DEACTIVATE, { handle: 'leaving' }, admin)).toBe('FORBIDDEN');
      expect(await client.errorCode(DEACTIVATE, { handle: 'ghost' }, alpha)).toBe('ALIAS_NOT_FOUND');
      expect(await rows({ handle: 'leaving' })).toEqual([
        expect.objectContaining({ status: 'ACTIVE', deactivated_at: null }),
      ]);
    });

    it('deactivates once, idempotently; resolution then answers 422 ALIAS_INACTIVE', async () => {
      const first = (await client.execute(DEACTIVATE, { handle: 'leaving' }, alpha)).deactivateAlias;
      expect(first).toMatchObject({ handle: 'leaving', status: 'INACTIVE' });
      expect(first.deactivatedAt).toEqual(expect.any(String));
      const again = (await client.execute(DEACTIVATE, { handle: 'leaving' }, alpha)).deactivateAlias;
      expect(again).toEqual(first);

      for (const variables of [
        { alias: 'leaving' },
        { alias: 'leaving@alpha' },
        { phone: '+218950000001' },
        { iban: iban('101', '8080') },
      ]) {
        const { code } = await detailOf(RESOLVE, variables);
        expect([variables, code]).toEqual([variables, 'ALIAS_INACTIVE']);
      }
      expect((await client.execute(ALIAS, { handle: 'leaving' })).alias).toMatchObject({
        status: 'INACTIVE',
        deactivatedAt: first.deactivatedAt,
      });
    });

    it('never releases the handle, but releases the phone number', async () => {
      expect(await client.errorCode(CLAIM, { input: claimInput('leaving') }, alpha)).toBe('HANDLE_TAKEN');
      const successor = await claim('arriving', { phone: '+218950000001' });
      expect(successor.status).toBe('ACTIVE');
      expect((await client.execute(RESOLVE, { phone: '+218950000001' })).resolveAlias.alias).toBe('arriving');
    });
  });

  describe('federation', () => {
    it('resolves Alias references by handle, null for an unknown one', async () => {
      await claim('fed.ref', { customerDisplayName: 'Fatima Zahra' });
      const { _entities } = await client.execute(
        `query($r: [_Any!]!) { _entities(representations: $r) { ... on Alias { handle iban customerDisplayName bank { handle } } } }`,
        {
          r: [
            { __typename: 'Alias', handle: 'fed.ref' },
            { __typename: 'Alias', handle: 'ghost' },
          ],
        },
      );
      expect(_entities).toEqual([
        { handle: 'fed.ref', iban: iban('101', '7'), customerDisplayName: 'F*** Z***', bank: { handle: 'alpha' } },
        null,
      ]);
    });

    it('declares Alias as an entity and Bank as a non-resolvable stub keyed by handle', async () => {
      const { _service } = await client.execute(`{ _service { sdl } }`);
      const types = parse(_service.sdl).definitions.filter(
        (node): node is ObjectTypeDefinitionNode => node.kind === Kind.OBJECT_TYPE_DEFINITION,
      );
      const shape = (name: string) => {
        const type = types.find((node) => node.name.value === name)!;
        return {
          keys: type.directives?.filter((d) => d.name.value === 'key').map((d) => print(d)),
          fields: type.fields?.map((f) => `${f.name.value}: ${print(f.type)}`),
        };
      };
      expect(shape('Alias').keys).toEqual(['@key(fields: "handle")']);
      expect(shape('Bank')).toEqual({ keys: ['@key(fields: "handle", resolvable: false)'], fields: ['handle: ID!'] });
      expect(shape('Alias').fields).toEqual(
        expect.arrayContaining([
          'bank: Bank!',
          'bankCustomerRef: String!',
          'phone: String',
          'status: AliasStatus!',
          'deactivatedAt: DateTimeISO',
        ]),
      );
    });
  });
});

describe('maskDisplayName', () => {
  it.each([
    ['Ali Ben Omar', 'A*** B*** O***'],
    ['  sara   al-mabrouk ', 'S*** A***'],
    ['Mohammed', 'M***'],
    ['علي بن عمر', 'ع*** ب*** ع***'],
  ])('%s -> %s', (name, masked) => {
    expect(maskDisplayName(name)).toBe(masked);
  });
});
