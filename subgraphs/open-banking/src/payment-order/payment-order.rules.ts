import { rules, z } from '@gateway/kernel';

export const DESCRIPTION_MAX = 500;

/** POST /ob/payment-orders (spec "Payment order (Open Banking)"): checked before anything is asked or written. */
export const createPaymentOrderRules = z
  .object({
    sourceAccountId: z.string().trim().min(1, 'must not be empty').max(64),
    destination: z.discriminatedUnion('type', [z.object({ type: z.literal('iban'), value: rules.iban }).strict()], {
      error: 'type: must be iban',
    }),
    amount: rules.amount,
    currency: rules.currency,
    description: rules.text(DESCRIPTION_MAX).nullish(),
  })
  .strict();

export type CreatePaymentOrderRequest = z.infer<typeof createPaymentOrderRules>;
