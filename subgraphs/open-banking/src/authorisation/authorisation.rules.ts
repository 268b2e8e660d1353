import { rules, z } from '@gateway/kernel';

/** Wrong one-time passwords a consent takes; the third rejects it (as the checkout fails a session). */
export const MAX_OTP_FAILURES = 3;

export const approveRules = z.object({ customer: rules.customer, otp: rules.otp }).strict();

export type ApproveRequest = z.infer<typeof approveRules>;
