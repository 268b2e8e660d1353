/** What a destructive action reaches, in numbers, as the console's confirmations say it (issue 50). */

/** "1 open payment session", "3 open payment sessions". */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The admin-only counts a confirmation states (issue 50), read from the public API when it opens. */
export interface Impact {
  openPaymentSessionCount?: number | null;
  dashboardSessionCount?: number | null;
  authorisedConsentCount?: number | null;
}

/** What suspending or resuming reaches, with its numbers. */
export function suspensionImpact(kind: string, action: 'suspend' | 'resume', impact: Impact): string[] {
  const sessions = impact.openPaymentSessionCount ?? 0;
  const dashboards = impact.dashboardSessionCount ?? 0;
  const consents = impact.authorisedConsentCount ?? 0;
  if (kind === 'merchant')
    return action === 'suspend'
      ? [
          `${counted(sessions, 'open payment session')} can no longer be paid`,
          `${counted(dashboards, 'signed-in dashboard session')} ${dashboards === 1 ? 'is' : 'are'} refused (403 MERCHANT_SUSPENDED) until it is resumed`,
        ]
      : [
          `${counted(sessions, 'open payment session')} can be paid again`,
          `${counted(dashboards, 'dashboard session')} work${dashboards === 1 ? 's' : ''} again`,
        ];
  if (kind === 'tpp')
    return action === 'suspend'
      ? [
          `${counted(consents, 'authorised consent')} stop${consents === 1 ? 's' : ''} working (403 TPP_SUSPENDED) until it is resumed, and the open subscriptions of ${consents === 1 ? 'its tokens' : 'their tokens'} close`,
        ]
      : [`${counted(consents, 'authorised consent')} work${consents === 1 ? 's' : ''} again`];
  return [];
}
