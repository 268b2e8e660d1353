import { z } from 'zod';
import { GatewayError } from './errors';
import { parseIban } from './iban';
import { isCurrency } from './money';

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Validates client input with a zod schema; the first problem becomes a VALIDATION_ERROR whose
 * detail names the field as the spec does (snake_case), e.g. "settlement_account_iban: ...".
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field =
    issue.path.reduce<string>(
      (name, part) =>
        typeof part === 'string' ? (name ? `${name}.${snake(part)}` : snake(part)) : `${name}[${String(part)}]`,
      '',
    ) || 'body';
  throw new GatewayError('VALIDATION_ERROR', `${field}: ${issue.message}`);
}

const iban = z.string().transform((value, ctx) => {
  const info = parseIban(value);
  if (!info) {
    ctx.addIssue({ code: 'custom', message: 'not a valid IBAN (format or checksum)' });
    return z.NEVER;
  }
  return info;
});

/** A handle, or handle@bank_handle (the identity registry's shape). */
const ALIAS_SHAPE = /^[A-Za-z][A-Za-z0-9._-]{2,31}(@[A-Za-z][A-Za-z0-9-]{1,31})?$/;

/** Reusable field rules. */
export const rules = {
  amount: z.number().int('must be an integer of minor units').positive('must be positive').max(Number.MAX_SAFE_INTEGER),
  currency: z.string().refine(isCurrency, 'must be one of LYD, USD, EUR'),
  iban,
  /** handle or handle@bank_handle, loosely: the identity registry decides whether it exists. */
  alias: z.string().trim().regex(ALIAS_SHAPE, 'must be a handle or handle@bank_handle'),
  url: (production: boolean) =>
    z
      .url({
        protocol: production ? /^https$/ : /^https?$/,
        error: production ? 'must be an https URL' : 'must be an http(s) URL',
      })
      .max(2048),
  email: z.email('must be an email address').max(254),
  text: (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`),
  /**
   * A customer named by alias (handle or handle@bank_handle, the identity registry's shape) or by
   * IBAN: the payer at checkout, the customer approving a consent.
   */
  customer: z.discriminatedUnion(
    'type',
    [
      z
        .object({
          type: z.literal('alias'),
          value: z.string().trim().regex(ALIAS_SHAPE, 'must be a handle or handle@bank_handle'),
        })
        .strict(),
      z.object({ type: z.literal('iban'), value: iban }).strict(),
    ],
    { error: 'must be alias or iban' },
  ),
  /** A one-time password as banks issue them. */
  otp: z
    .string()
    .trim()
    .regex(/^\d{4,12}$/, 'must be 4 to 12 digits'),
};
