import { dpopAnswerHeaders, GatewayError, type Logger, type Principal } from '@gateway/kernel';
import type { CredentialHeaders } from './authenticate';
import { carriesNul, inspectOperation, unknownOperationName, type OperationSource } from './operation';
import type { LimitCharge, LimitCharges } from './rate-limit-charge';
import type { RequestLabels } from './router-context';
import type { RouterMetrics } from './router-metrics';

/** What the edge decided before Apollo: the caller and the headers to answer with, or a refusal. */
export interface Admission {
  principal?: Principal;
  refusal?: GatewayError;
  /** Made for this request: the edge adds its own to them rather than copying (a spread per request costs microseconds). */
  headers: Record<string, string>;
}

/**
 * Admits one request (HTTP or in process) under its request id; fills in the labels' operation.
 * Synchronous when nothing it asks waits (an anonymous or service caller, rate limits in memory):
 * each async step would cost every request promises (issue 32; principalWithoutLookup).
 */
export type Admit = (
  headers: CredentialHeaders,
  ip: string,
  source: OperationSource | undefined,
  requestId: string,
  labels: RequestLabels,
) => Admission | Promise<Admission>;

export interface AdmissionOptions {
  authenticate(headers: CredentialHeaders, ip: string): Principal | Promise<Principal>;
  charges: Pick<LimitCharges, 'operation'>;
  /** The DPoP nonce to hand out now: every answer to a request carrying a DPoP proof has one (RFC 9449 8.2). */
  dpopNonce?: () => string;
  metrics: Pick<RouterMetrics, 'countAdmission' | 'operations'>;
  logger: Logger;
}

const invalid = (text: string) => new GatewayError('VALIDATION_ERROR', text, text);

const refuse = (error: GatewayError, answerHeaders: Record<string, string> = {}): Admission => ({
  refusal: error,
  headers: answerHeaders,
});

/**
 * The edge's admission stage, run before Apollo so a refused request costs no planning: the
 * caller's credentials, documents Apollo would mishandle (NUL characters, an unknown operation
 * name, a subscription over HTTP), then the rate limits. One admission for both transports.
 */
export function createAdmission({ authenticate, charges, dpopNonce, metrics, logger }: AdmissionOptions): Admit {
  return (headers, ip, source, requestId, labels) => {
    const withNonce = (admission: Admission): Admission => {
      if (dpopNonce && headers.dpop !== undefined && !admission.headers['dpop-nonce'])
        admission.headers['dpop-nonce'] = dpopNonce();
      return admission;
    };
    // Whatever fails, synchronously or not: a refused credential, or a store that cannot answer.
    const failed = (error: unknown): Admission => {
      if (error instanceof GatewayError) {
        metrics.countAdmission('unauthenticated');
        return withNonce(refuse(error, dpopAnswerHeaders(error)));
      }
      logger.error({ err: error, request_id: requestId }, 'edge authentication failed');
      return refuse(new GatewayError('SERVICE_UNAVAILABLE', 'credential check unavailable'));
    };
    const charged = (principal: Principal, charge: LimitCharge): Admission => {
      if (charge.refusal) {
        metrics.countAdmission('rate_limited');
        return withNonce(refuse(charge.refusal, charge.headers));
      }
      metrics.countAdmission('accepted');
      return withNonce({ principal, headers: charge.headers });
    };
    const admitted = (principal: Principal): Admission | Promise<Admission> => {
      if (carriesNul(source)) return refuse(invalid('text must not contain the NUL character (U+0000)'));
      const unknownOperation = unknownOperationName(source);
      if (unknownOperation !== undefined) return refuse(invalid(`Unknown operation named "${unknownOperation}".`));
      const operation = inspectOperation(source);
      // Operators' requests are few and each may change where money goes: every one is logged
      // with the admin key's name (API-CONTRACT "Operator controls": the name reaches the logs).
      if (principal.kind === 'admin')
        logger.info(
          {
            request_id: requestId,
            admin_key_name: principal.name,
            ...(principal.id ? { admin_key_id: principal.id } : {}),
            operation: operation?.name ?? null,
            ip,
          },
          'admin request',
        );
      if (!operation) return { principal, headers: {} }; // malformed: Apollo answers it with a validation error
      // Callers without credentials add names from a smaller allowance of the bounded set.
      labels.operation = metrics.operations.label(operation.name, principal.kind !== 'anonymous');
      // The gateway cannot execute one over HTTP (it threw, answered 500): say where they run.
      if (operation.type === 'subscription')
        return refuse(
          invalid('Subscriptions run over graphql-ws (a WebSocket on this same /graphql path), not over HTTP.'),
        );
      if (principal.kind === 'service') return { principal, headers: {} }; // platform-internal traffic is not a client's budget
      const charge = charges.operation(principal, operation);
      return charge instanceof Promise ? charge.then((known) => charged(principal, known)) : charged(principal, charge);
    };
    try {
      const principal = authenticate(headers, ip);
      const admission = principal instanceof Promise ? principal.then(admitted) : admitted(principal);
      return admission instanceof Promise ? admission.catch(failed) : admission;
    } catch (error) {
      return failed(error);
    }
  };
}
