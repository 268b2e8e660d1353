import { rules, z } from '@gateway/kernel';
import { MAX_ALERT_THRESHOLDS } from './net-debit.positions';

/** PUT /banks/{handle}/net-debit-caps/{currency} (API-CONTRACT "Net debit caps and positions"): checked before anything is read. */
export const netDebitCapRules = z
  .object({
    currency: rules.currency,
    mode: z.enum(['live', 'test'], { message: 'must be live or test' }),
    netDebitCap: z
      .number({ message: 'must be an integer of minor units' })
      .int('must be an integer of minor units')
      .min(0, 'must be 0 or more')
      .max(Number.MAX_SAFE_INTEGER),
    /** Percent of the cap; each crossing upwards records liquidity.threshold_reached. */
    alertThresholds: z
      .array(z.number().int('must be whole percents').min(1, 'must be 1 to 100').max(100, 'must be 1 to 100'))
      .min(1, 'must name at least one threshold')
      .max(MAX_ALERT_THRESHOLDS, `must name at most ${MAX_ALERT_THRESHOLDS} thresholds`)
      .nullish(),
    liquidityCover: z.boolean().nullish(),
  })
  .strict();
export type NetDebitCapRequest = z.infer<typeof netDebitCapRules>;

/** The world named by `?mode=`: live unless test. */
export const modeRules = z.object({
  currency: rules.currency,
  mode: z.enum(['live', 'test'], { message: 'must be live or test' }),
});

export const DEFAULT_ALERT_THRESHOLDS = [80, 100];
