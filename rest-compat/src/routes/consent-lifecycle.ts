import { z } from 'zod';

/*
 * What every kind of consent's REST record shows of its lifecycle (account access, funds
 * confirmation, VRP): the GraphQL fields of ConsentLifecycle and their snake_case shape, once.
 * `consentId: id`: the REST record names the id consent_id, as the spec's response does.
 */

export const CONSENT_LIFECYCLE_FIELDS =
  'consentId: id livemode tppId status bankHandle redirectUri consentUrl expiresAt revokedBy createdAt updatedAt authorisedAt rejectedAt revokedAt expiredAt';

const nullableTime = z.string().nullable().describe('ISO 8601 UTC; null until reached.');

export const consentLifecycleShape = {
  consent_id: z.string().describe('con_…'),
  livemode: z.boolean().describe("false for a test object (a test credential's): its money moves only at test cores."),
  tpp_id: z.string().describe('The TPP that requested it (tpp_…).'),
  status: z.enum(['AWAITING_AUTHORISATION', 'AUTHORISED', 'REJECTED', 'REVOKED', 'EXPIRED']),
  bank_handle: z.string(),
  redirect_uri: z.string(),
  consent_url: z.string().describe('Send the customer here: the consent page {base_url}/ob/auth/{consent_id}.'),
  expires_at: z.string().describe('ISO 8601 UTC.'),
  revoked_by: z.enum(['tpp', 'customer', 'bank']).nullable().describe('Who revoked the consent; null unless REVOKED.'),
  created_at: z.string().describe('ISO 8601 UTC.'),
  updated_at: z.string().describe('ISO 8601 UTC.'),
  authorised_at: nullableTime,
  rejected_at: nullableTime,
  revoked_at: nullableTime,
  expired_at: nullableTime,
};
