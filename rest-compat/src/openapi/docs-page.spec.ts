import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EVAL_PROBE, NO_EVAL_PROBE } from './docs-page';

/** The standalone bundle /docs serves, as installed (dist/index.js is the package's main). */
const installedBundle = () =>
  readFileSync(join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js'), 'utf8');

describe("/docs: zod's eval probe in Scalar's bundle, answered in advance", () => {
  // Whoever upgrades Scalar learns here, by name, that the probe's text moved: the page would
  // otherwise answer 500 for the bundle (the patch throws), or log a CSP refusal if it did not.
  it('finds the probe once in the installed bundle and leaves none behind', () => {
    const bundle = installedBundle();
    expect(bundle.split(EVAL_PROBE).length - 1).toBe(1);
    const patched = NO_EVAL_PROBE.apply(bundle);
    expect(patched).not.toMatch(EVAL_PROBE);
    expect(patched.length).toBeLessThan(bundle.length);
  });

  it.each([
    ['1.46 (new, a catch binding)', 'x=()=>{try{return new Function(""),!0}catch(e){return!1}};'],
    ['1.76 (no new, template quotes, no catch binding)', 'x=()=>{try{return Function(``),!0}catch{return!1}};'],
  ])('answers the probe as Scalar %s minified it', (_version, source) => {
    expect(NO_EVAL_PROBE.apply(source)).toBe('x=()=>{return!1};');
  });

  it('fails loudly when the probe is not there once', () => {
    expect(() => NO_EVAL_PROBE.apply('x=()=>{try{return eval(""),!0}catch{return!1}};')).toThrow(
      /eval probe found 0 times/,
    );
    const twice = 'try{return Function(``),!0}catch{return!1}';
    expect(() => NO_EVAL_PROBE.apply(twice + twice)).toThrow(/eval probe found 2 times/);
  });
});
