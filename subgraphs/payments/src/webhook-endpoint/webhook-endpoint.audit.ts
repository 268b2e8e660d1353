import type { WebhookEndpointEntity } from './webhook-endpoint.entity';

/** An endpoint as the audit log shows it, in the REST field names; its secret only as issued. */
export function endpointAuditFields(endpoint: WebhookEndpointEntity): Record<string, unknown> {
  return {
    url: endpoint.url,
    enabled_events: endpoint.enabledEvents,
    description: endpoint.description,
    status: endpoint.status,
    livemode: endpoint.livemode,
  };
}
