import { GatewayError, parseInput } from '@gateway/kernel';
import { initialMetadataRule, METADATA_MAX_KEYS, metadataFilterRule, updateMetadataRules } from './metadata.rules';
import { keysAfter } from './metadata.sql';
import { toMetadataEntries } from './metadata.type';

const entries = (object: Record<string, string>) => Object.entries(object).map(([key, value]) => ({ key, value }));
const many = (count: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, 'v']));
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as GatewayError).detail;
  }
  return 'accepted';
};

/** Metadata's rules (Stripe's): 20 keys of at most 40 characters, string values of at most 500, "" removes. */
describe('metadata rules', () => {
  it('takes up to 20 keys at creation, "" meaning no key, and refuses past the limits naming metadata', () => {
    expect(parseInput(initialMetadataRule, entries({ order_id: '42', gone: '' }))).toEqual({ order_id: '42' });
    expect(Object.keys(parseInput(initialMetadataRule, entries(many(METADATA_MAX_KEYS))))).toHaveLength(20);
    const create = (object: Record<string, string>) => () =>
      parseInput(updateMetadataRules.pick({}).extend({ metadata: initialMetadataRule }), { metadata: entries(object) });
    expect(refusal(create(many(21)))).toBe('metadata: at most 20 keys (this would make 21)');
    expect(refusal(create({ ['k'.repeat(41)]: 'v' }))).toMatch(/^metadata: key "k+" is longer than 40 characters/);
    expect(refusal(create({ k: 'v'.repeat(501) }))).toBe('metadata: the value of "k" is longer than 500 characters');
    expect(refusal(create({ '': 'v' }))).toBe('metadata: a key must not be empty');
    expect(refusal(create({ 'a\nb': 'v' }))).toMatch(/must not hold brackets or control characters/);
    expect(refusal(create({ ['k'.repeat(40)]: 'v'.repeat(500) }))).toBe('accepted');
  });

  it('refuses the reserved keys __proto__, constructor and prototype by name, at creation, in a PATCH and a filter (issue 46)', () => {
    const create = (entry: { key: string; value: string }) => () =>
      parseInput(updateMetadataRules.pick({}).extend({ metadata: initialMetadataRule }), { metadata: [entry] });
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const named = `metadata: key "${key}" is reserved (__proto__, constructor and prototype are never accepted)`;
      // Before: __proto__ was the object's prototype when assigned, so the key vanished and the call succeeded.
      expect(refusal(create({ key, value: 'x' }))).toBe(named);
      expect(refusal(() => parseInput(updateMetadataRules, { metadata: [{ key, value: 'x' }] }))).toBe(named);
      expect(refusal(() => parseInput(metadataFilterRule, { key, value: 'x' }))).toBe(
        named.replace('metadata', 'body'),
      );
    }
    expect(refusal(create({ key: 'Constructor', value: 'x' }))).toBe('accepted');
    expect(refusal(create({ key: 'proto', value: 'x' }))).toBe('accepted');
  });

  it('turns a PATCH into keys to set and keys to remove, refusing a key given twice', () => {
    expect(parseInput(updateMetadataRules, { metadata: entries({ a: '1', b: '' }) }).metadata).toEqual({
      set: { a: '1' },
      remove: ['b'],
    });
    const twice = () =>
      parseInput(updateMetadataRules, {
        metadata: [
          { key: 'a', value: '1' },
          { key: 'a', value: '2' },
        ],
      });
    expect(refusal(twice)).toBe('metadata: key "a" is given twice');
  });

  it('counts the keys a merge leaves, and shows entries in key order', () => {
    expect(keysAfter({ a: '1', b: '2' }, { set: { c: '3', a: '9' }, remove: ['b', 'zz'] })).toBe(2);
    expect(toMetadataEntries({ b: '2', a: '1' })).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    expect(toMetadataEntries(null)).toEqual([]);
  });
});
