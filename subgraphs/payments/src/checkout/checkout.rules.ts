import { rules, z } from '@gateway/kernel';

export const authorizeRules = z.object({ payer: rules.customer, otp: rules.otp }).strict();

export type AuthorizeRequest = z.infer<typeof authorizeRules>;
