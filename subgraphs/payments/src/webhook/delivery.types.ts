/* The rows DeliveryRepository (delivery.repository.ts) hands over and takes, apart from its statements. */

/** A delivery as the worker holds it while attempting it (the row's own column names). */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  /** mer_… or tpp_… */
  audience_id: string;
  /** we_…: the endpoint it goes to (the audience's primary, we_mer_…/we_tpp_…, or one of its own). */
  endpoint_id: string;
  aggregate_id: string;
  payload: string;
  attempts: number;
  /** The claim's fencing token: the attempt is recorded only while it is still the row's. */
  lease_token: string;
  /** Its target as the claim's own statement read it (absent: to be read for the attempt, a TPP's primary endpoint). */
  target_read?: TargetRead;
}

/** A further endpoint's stored target. */
export interface EndpointTarget {
  url: string;
  secret_sealed: string;
  status: string;
}

/**
 * A delivery's target read by the statement that claimed it, for that attempt: a further
 * endpoint's row, or a merchant's primary target; null when there is none (deleted, unknown).
 */
export type TargetRead = { endpoint: EndpointTarget | null } | { merchant: MerchantTarget | null };

/** A new event of one audience, a merchant or a TPP, to log and deliver to its endpoints (intake). */
export interface NewEvent {
  eventId: string;
  eventKind: string;
  audienceId: string;
  aggregateId: string;
  /** The event's world: envelope livemode. */
  livemode: boolean;
  /** The event's place among its aggregate's events; null for an event without one. */
  sequence: number | null;
  payload: string;
  now: Date;
  /**
   * Delivery ids (whd_…) for the primary endpoint and then the others: one per endpoint at most
   * (MAX_ENDPOINTS + 1); beyond them the statement makes its own.
   */
  deliveryIds: string[];
  /** A TPP's primary endpoint (its webhook_url, asked of open-banking) is set; a merchant's is read in the statement. */
  primaryUrlSet?: boolean;
}

/** A merchant's webhook target as stored: the session's URL first, else the merchant's. */
export interface MerchantTarget {
  merchant_url: string | null;
  sealed: string;
  session_url: string | null;
}

/** A delivery the intake inserted, with its lease_token when it was taken at once, and its endpoint's target. */
export type IntakenDelivery = Omit<ClaimedDelivery, 'lease_token'> & {
  lease_token: string | null;
  /** Inserted HELD: its owner is suspended (nothing to send or wait for until it is resumed). */
  held: boolean;
  /** The endpoint's URL and sealed secret as read in the statement; null for the primary endpoint (see `target`). */
  endpoint_url: string | null;
  endpoint_sealed: string | null;
};

/** What the intake did with an event for a known audience. */
export interface IntakeResult {
  /** The merchant's primary target read in the same statement; null for a TPP (whose target the caller read). */
  target: MerchantTarget | null;
  /** Whether the event was logged now (false: a second copy, nothing inserted); of several, whether any was. */
  stored: boolean;
  /** The new deliveries, one per matching endpoint. */
  deliveries: IntakenDelivery[];
}
