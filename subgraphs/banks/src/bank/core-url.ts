import type { z } from '@gateway/kernel';

/** Two core URLs name one core when they are equal but for trailing slashes. */
export const sameCore = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** A core base URL is a plain origin plus optional path: no credentials, query or fragment. */
export function assertCoreBaseUrlShape(value: string, ctx: z.RefinementCtx): void {
  // zod runs refinements even after the URL rule failed; that failure is already reported.
  if (!URL.canParse(value)) return;
  const url = new URL(value);
  if (url.username || url.password || url.search || url.hash) {
    ctx.addIssue({ code: 'custom', message: 'must not carry credentials, a query or a fragment' });
  }
}
