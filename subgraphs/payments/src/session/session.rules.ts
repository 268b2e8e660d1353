import { rules, webhookUrlRule, z, type WebhookUrlSettings } from '@gateway/kernel';
import { filterFields, listRules, statusRule } from '../listing/list.rules';
import { initialMetadataRule } from '../metadata/metadata.rules';
import { SESSION_STATUSES } from './session.transitions';

const destination = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('alias'), value: rules.alias }).strict(),
    z.object({ type: z.literal('iban'), value: rules.iban }).strict(),
  ],
  { error: 'type: must be alias or iban' },
);

/** Bounds of free text a merchant sends: stored, shown at checkout, sent to the cores. */
export const DESCRIPTION_MAX = 500;
export const REFERENCE_MAX = 128;

/** Built once per mode and egress policy: a zod schema is costly to build and free to reuse. */
const BUILT = new Map<string, CreateSessionRules>();

/** POST /payments/sessions: everything is checked before anything is written or asked. */
export function createSessionRules(settings: WebhookUrlSettings): CreateSessionRules {
  const key = `${settings.production}:${settings.privateTargets}`;
  let built = BUILT.get(key);
  if (!built) BUILT.set(key, (built = buildCreateSessionRules(settings)));
  return built;
}

function buildCreateSessionRules(settings: WebhookUrlSettings) {
  const { production } = settings;
  return z
    .object({
      amount: rules.amount,
      currency: rules.currency,
      destination,
      description: rules.text(DESCRIPTION_MAX).nullish(),
      reference: rules.text(REFERENCE_MAX).nullish(),
      redirectUrl: z.string().trim().pipe(rules.url(production)).nullish(),
      webhookUrl: webhookUrlRule(settings).nullish(),
      metadata: initialMetadataRule.nullish(),
    })
    .strict();
}

type CreateSessionRules = ReturnType<typeof buildCreateSessionRules>;
export type CreateSessionRequest = z.infer<CreateSessionRules>;

/** paymentSessions (GET /payments/sessions): page and filters. */
export const sessionListRules = listRules({
  status: statusRule(SESSION_STATUSES).nullish(),
  reference: filterFields.reference,
  amountMin: filterFields.amountMin,
  amountMax: filterFields.amountMax,
  metadata: filterFields.metadata,
});
export type SessionListRequest = z.infer<typeof sessionListRules>;
