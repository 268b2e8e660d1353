import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export const ENDPOINT_STATUSES = ['ENABLED', 'DISABLED'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/**
 * A further webhook endpoint of a merchant or TPP (API-CONTRACT "Webhook endpoints and events"):
 * its own URL, event filter, sealed secret and world. Database shape; the graph shape is
 * webhook-endpoint.type.ts. The audience's webhook_url is its primary endpoint and has no row
 * here (see primary-endpoint.ts).
 */
@Entity({ tableName: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  /** we_… */
  @PrimaryKey({ type: 'text' })
  id!: string;

  /** The merchant (mer_…) or TPP (tpp_…) whose events it gets. */
  @Property({ type: 'text' })
  audienceId!: string;

  /** The world of the credential that created it: it gets only that world's events. */
  @Property({ type: 'boolean' })
  livemode!: boolean;

  @Property({ type: 'text' })
  url!: string;

  /** Event kinds it gets, or ['*'] for all of its audience's. */
  @Property({ type: 'json' })
  enabledEvents!: string[];

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** DISABLED: no delivery is made to it (new events are not queued for it, pending ones fail). */
  @Property({ type: 'text' })
  status!: EndpointStatus;

  /** Sealed (AES-GCM with the platform secret), like the merchant's webhook secret: needed raw to sign. */
  @Property({ type: 'text' })
  secretSealed!: string;

  @Property({ type: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
