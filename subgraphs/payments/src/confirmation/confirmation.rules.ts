import { rules, z } from '@gateway/kernel';

export const confirmationRules = z
  .object({
    paymentReference: z.string().trim().min(1, 'required').max(128),
    sessionId: z.string().trim().min(1, 'required').max(64),
    creditorIban: rules.iban,
    amount: rules.amount,
    currency: rules.currency,
    rrn: z.string().trim().min(1, 'required').max(64),
  })
  .strict();

export type ConfirmationRequest = z.infer<typeof confirmationRules>;
