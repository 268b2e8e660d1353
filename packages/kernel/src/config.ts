import { z } from 'zod';

export { z };

/**
 * Parses the environment with a zod schema, reporting every problem at once and refusing to start
 * on any of them.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`invalid configuration:\n${problems.join('\n')}`);
  }
  return result.data;
}

/** "on"/"off"/"true"/"false"/"1"/"0" as a boolean, for flags such as SANDBOX_BANKS. */
export const envFlag = z
  .enum(['on', 'off', 'true', 'false', '1', '0'])
  .transform((value) => value === 'on' || value === 'true' || value === '1');

export const envPort = z.coerce.number().int().min(0).max(65535);

/** "5,30,120" (seconds) as a list; every value a non-negative number. */
export const envSecondsList = z.string().transform((text, ctx) => {
  const values = text.split(',').map((part) => Number(part.trim()));
  if (!values.length || values.some((value) => !Number.isFinite(value) || value < 0)) {
    ctx.addIssue({ code: 'custom', message: 'must be comma-separated seconds, e.g. 5,30,120' });
    return z.NEVER;
  }
  return values;
});

export const isProduction = (env: Record<string, string | undefined> = process.env): boolean =>
  env.NODE_ENV === 'production';
