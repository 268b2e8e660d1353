import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { graphql } from 'graphql';
import { buildIdentitySchema } from './schema';

/** The committed SDL (DESIGN: printed schema committed, a test fails on drift). UPDATE_SCHEMA=1 rewrites it. */
const SDL_FILE = join(__dirname, '..', 'schema.graphql');

describe('identity schema', () => {
  it('matches the committed schema.graphql', async () => {
    const result = await graphql({ schema: await buildIdentitySchema(), source: '{ _service { sdl } }' });
    const sdl = `${(result.data as { _service: { sdl: string } })._service.sdl.trim()}\n`;
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(SDL_FILE, sdl);
    expect(sdl).toBe(readFileSync(SDL_FILE, 'utf8'));
  });
});
