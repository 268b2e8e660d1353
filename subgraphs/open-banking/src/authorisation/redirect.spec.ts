import { approvedRedirect, authorisationRedirect, rejectedRedirect } from './redirect';

const consent = { id: 'con_1', redirectUri: 'https://tpp.example/cb', state: 'st' };
const paramsOf = (url: string) => [...new URL(url).searchParams];

describe('authorization response redirect', () => {
  it('adds code, consent_id, state and iss in that order', () => {
    const url = approvedRedirect(consent, 'oac_abc', 'https://gw.example.ly');
    expect(url.startsWith('https://tpp.example/cb?')).toBe(true);
    expect(paramsOf(url)).toEqual([
      ['code', 'oac_abc'],
      ['consent_id', 'con_1'],
      ['state', 'st'],
      ['iss', 'https://gw.example.ly'],
    ]);
  });

  it('keeps the registered query as registered', () => {
    const url = approvedRedirect(
      { ...consent, redirectUri: 'https://tpp.example/cb?app=budget&x=a%20b' },
      'oac_abc',
      'https://gw.example.ly',
    );
    expect(url).toMatch(/^https:\/\/tpp\.example\/cb\?app=budget&x=a%20b&code=oac_abc&/);
  });

  it('never gives a parameter it sets twice', () => {
    const url = authorisationRedirect('https://tpp.example/cb?state=old&keep=1', [['state', 'new']]);
    expect(new URL(url).searchParams.getAll('state')).toEqual(['new']);
    expect(new URL(url).searchParams.get('keep')).toBe('1');
  });

  it('gives back a long, non-ASCII state unchanged', () => {
    const state = `${'Zx9-._~'.repeat(60)} ü 状態 &=?#/+%20 🙂`.slice(0, 512);
    const url = rejectedRedirect({ ...consent, state }, 'https://gw.example.ly');
    expect(new URL(url).searchParams.get('state')).toBe(state);
    expect(paramsOf(url).map(([name]) => name)).toEqual(['error', 'consent_id', 'state', 'iss']);
    expect(new URL(url).searchParams.get('error')).toBe('access_denied');
  });
});
