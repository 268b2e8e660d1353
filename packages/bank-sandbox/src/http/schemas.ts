import { z } from 'zod';
import { CURRENCIES } from '@gateway/kernel';
import { bankErrors } from '../errors';

const currency = z.enum(Object.keys(CURRENCIES) as [keyof typeof CURRENCIES, ...Array<keyof typeof CURRENCIES>], {
  error: `must be one of ${Object.keys(CURRENCIES).join(', ')}`,
});
const amount = z
  .number({ error: 'must be a positive integer of minor units' })
  .refine((value) => Number.isSafeInteger(value) && value > 0, 'must be a positive integer of minor units');
const text = (max: number) => z.string().trim().min(1, 'required').max(max);
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00.000Z`);
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
  }, 'not a calendar date');

export const verifyBody = z.object({ customer_ref: text(128), otp: z.string().min(1).max(64) });

export const debitBody = z.object({
  iban: text(64),
  amount,
  currency,
  reference: text(128),
  description: z.string().max(500).optional().default(''),
});

/** Same structure as a debit (spec); unknown extra fields are accepted and ignored (zod strips them). */
export const creditBody = debitBody;

export const transactionsQuery = z
  .object({ fromDate: isoDate.optional(), toDate: isoDate.optional() })
  .refine((q) => !q.fromDate || !q.toDate || q.fromDate <= q.toDate, {
    message: 'fromDate is after toDate',
    path: ['fromDate'],
  });

export const enrollBody = z.object({ alias: text(64), account_iban: text(64), customer_ref: text(128) });

export const openAccountBody = z.object({
  customer_ref: text(128),
  holder_name: text(200),
  currency,
  balance: z
    .number()
    .refine((value) => Number.isSafeInteger(value) && value >= 0, 'must be a non-negative integer of minor units')
    .default(0),
  iban: text(64).optional(),
  otp: z.string().optional(),
});

export const setOtpBody = z.object({ otp: z.string() });

export const faultsBody = z.object({
  latency_ms: z.number().optional(),
  error_rate: z.number().optional(),
  error_status: z.number().optional(),
  hang: z.boolean().optional(),
  after_booking: z.boolean().optional(),
  times: z.number().optional(),
  operations: z.array(z.string()).optional(),
});

export const gatewayBody = z.object({
  url: z.url({ protocol: /^https?$/ }),
  bank_key: text(200),
  internal_key: text(200).optional(),
});

/** Parses a request part, turning zod's issues into one 400 naming the fields. */
export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
  throw bankErrors.validation(problems.join('; '));
}
