import { randomBytes } from 'node:crypto';
import { httpStatusOf, type Logger } from '@gateway/kernel';
import type { Execute } from '../executor';
import { passBackRouterHeaders } from '../headers';
import type { PageHandler } from '../register-routes';
import { cardPage, escapeHtml, securityHeaders } from './html';

const REDEEM = `mutation RedeemPushedAuthorizationRequest($clientId: String!, $requestUri: String!) {
  redeemPushedAuthorizationRequest(clientId: $clientId, requestUri: $requestUri)
}`;

/** What the customer reads when the link cannot be opened, by the refusal's code (answered with the code's status). */
const REFUSED: Record<string, { title: string; text: string }> = {
  INVALID_REQUEST_URI: {
    title: 'This link has expired',
    text: 'This link can be opened once, within a minute. Go back to the app that sent you and start again.',
  },
  CONSENT_ALREADY_DECIDED: {
    title: 'Already answered',
    text: 'This request has already been answered. Go back to the app that sent you.',
  },
  CONSENT_EXPIRED: {
    title: 'This request has expired',
    text: 'Go back to the app that sent you and start again.',
  },
  VALIDATION_ERROR: {
    title: 'This link is not valid',
    text: 'Go back to the app that sent you and start again.',
  },
};

/**
 * GET /ob/auth?client_id&request_uri for a browser (RFC 9126 4): redeems the pushed request and
 * sends the browser on to the consent page (303), or shows why it cannot. The query is not
 * validated here: the route's JSON form has the rules, and any refusal is shown as a page.
 */
export function authorizationEndpointPage(execute: Execute, logger: Logger): PageHandler {
  return async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const clientId = typeof query.client_id === 'string' ? query.client_id : '';
    const requestUri = typeof query.request_uri === 'string' ? query.request_uri : '';
    const extra = Object.keys(query).filter((name) => name !== 'client_id' && name !== 'request_uri');
    const execution =
      clientId && requestUri && extra.length === 0
        ? await execute(request, REDEEM, { clientId, requestUri }, undefined, { anonymous: true })
        : undefined;
    if (execution) passBackRouterHeaders(reply, execution.headers);
    const consentId = execution?.data?.redeemPushedAuthorizationRequest as string | undefined;
    if (consentId)
      return reply.header('cache-control', 'no-store').redirect(`/ob/auth/${encodeURIComponent(consentId)}`, 303);

    const nonce = randomBytes(16).toString('base64');
    securityHeaders(reply, nonce);
    reply.type('text/html; charset=utf-8');
    const code = execution?.error?.code ?? 'VALIDATION_ERROR';
    const refused = REFUSED[code];
    if (!refused) {
      logger.warn({ request_id: request.requestId, code }, 'authorization endpoint could not redeem a request_uri');
      return reply
        .code(503)
        .send(
          cardPage(
            'Try again shortly',
            '<h1>This page is unavailable</h1><p class="meta">Please try again in a moment.</p>',
            nonce,
          ),
        );
    }
    return reply
      .code(httpStatusOf(code))
      .send(
        cardPage(
          refused.title,
          `<h1>${escapeHtml(refused.title)}</h1><p class="meta">${escapeHtml(refused.text)}</p>`,
          nonce,
        ),
      );
  };
}
