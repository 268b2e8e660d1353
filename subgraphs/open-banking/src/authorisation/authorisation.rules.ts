import { rules, z } from '@gateway/kernel';

/** A handle, or handle@bank_handle (the identity registry's shape). */
const ALIAS_SHAPE = /^[A-Za-z][A-Za-z0-9._-]{2,31}(@[A-Za-z][A-Za-z0-9-]{1,31})?$/;

/** Wrong one-time passwords a consent takes; the third rejects it (as the checkout fails a session). */
export const MAX_OTP_FAILURES = 3;

export const approveRules = z
  .object({
    customer: z.discriminatedUnion(
      'type',
      [
        z.object({ type: z.literal('alias'), value: z.string().trim().regex(ALIAS_SHAPE, 'must be a handle or handle@bank_handle') }).strict(),
        z.object({ type: z.literal('iban'), value: rules.iban }).strict(),
      ],
      { error: 'must be alias or iban' },
    ),
    otp: z
      .string()
      .trim()
      .regex(/^\d{4,12}$/, 'must be 4 to 12 digits'),
  })
  .strict();

export type ApproveRequest = z.infer<typeof approveRules>;
