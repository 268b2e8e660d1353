import type { MigrationObject } from '@gateway/db';
import { Migration20261123000200_tpps } from './Migration20261123000200_tpps';
import { Migration20261126000100_outbox } from './Migration20261126000100_outbox';
import { Migration20261126000200_consents } from './Migration20261126000200_consents';
import { Migration20261127000100_consent_accounts } from './Migration20261127000100_consent_accounts';
import { Migration20261128000100_consent_otp_failures } from './Migration20261128000100_consent_otp_failures';
import { Migration20261129000100_payment_orders } from './Migration20261129000100_payment_orders';
import { Migration20261129000200_payment_order_sca } from './Migration20261129000200_payment_order_sca';
import { Migration20261130000100_outbox_aggregate_sequence } from './Migration20261130000100_outbox_aggregate_sequence';
import { Migration20261130000200_sca_authorisation_hash } from './Migration20261130000200_sca_authorisation_hash';
import { Migration20261201000100_consent_approval_hash } from './Migration20261201000100_consent_approval_hash';
import { Migration20261202000100_outbox_relay_lease } from './Migration20261202000100_outbox_relay_lease';
import { Migration20261203000100_livemode } from './Migration20261203000100_livemode';
import { Migration20261203000200_sca_checks_in_flight } from './Migration20261203000200_sca_checks_in_flight';
import { Migration20261210000300_tpp_status } from './Migration20261210000300_tpp_status';
import { Migration20261224000100_fapi2_clients } from './Migration20261224000100_fapi2_clients';
import { Migration20261230000100_pushed_authorization_requests } from './Migration20261230000100_pushed_authorization_requests';
import { Migration20261231000100_funds_confirmation_consents } from './Migration20261231000100_funds_confirmation_consents';
import { Migration20270101000100_vrp } from './Migration20270101000100_vrp';
import { Migration20270103000100_outbox_notify } from './Migration20270103000100_outbox_notify';
import { Migration20270110000100_notify_after_commit } from './Migration20270110000100_notify_after_commit';
import { Migration20270111000100_payment_orders_by_consent } from './Migration20270111000100_payment_orders_by_consent';

/** Committed migrations of the open_banking schema, in order. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261123000200_tpps', class: Migration20261123000200_tpps },
  { name: 'Migration20261126000100_outbox', class: Migration20261126000100_outbox },
  { name: 'Migration20261126000200_consents', class: Migration20261126000200_consents },
  { name: 'Migration20261127000100_consent_accounts', class: Migration20261127000100_consent_accounts },
  { name: 'Migration20261128000100_consent_otp_failures', class: Migration20261128000100_consent_otp_failures },
  { name: 'Migration20261129000100_payment_orders', class: Migration20261129000100_payment_orders },
  { name: 'Migration20261129000200_payment_order_sca', class: Migration20261129000200_payment_order_sca },
  {
    name: 'Migration20261130000100_outbox_aggregate_sequence',
    class: Migration20261130000100_outbox_aggregate_sequence,
  },
  { name: 'Migration20261130000200_sca_authorisation_hash', class: Migration20261130000200_sca_authorisation_hash },
  { name: 'Migration20261201000100_consent_approval_hash', class: Migration20261201000100_consent_approval_hash },
  { name: 'Migration20261202000100_outbox_relay_lease', class: Migration20261202000100_outbox_relay_lease },
  { name: 'Migration20261203000100_livemode', class: Migration20261203000100_livemode },
  { name: 'Migration20261203000200_sca_checks_in_flight', class: Migration20261203000200_sca_checks_in_flight },
  { name: 'Migration20261210000300_tpp_status', class: Migration20261210000300_tpp_status },
  { name: 'Migration20261224000100_fapi2_clients', class: Migration20261224000100_fapi2_clients },
  {
    name: 'Migration20261230000100_pushed_authorization_requests',
    class: Migration20261230000100_pushed_authorization_requests,
  },
  {
    name: 'Migration20261231000100_funds_confirmation_consents',
    class: Migration20261231000100_funds_confirmation_consents,
  },
  { name: 'Migration20270101000100_vrp', class: Migration20270101000100_vrp },
  { name: 'Migration20270103000100_outbox_notify', class: Migration20270103000100_outbox_notify },
  { name: 'Migration20270110000100_notify_after_commit', class: Migration20270110000100_notify_after_commit },
  {
    name: 'Migration20270111000100_payment_orders_by_consent',
    class: Migration20270111000100_payment_orders_by_consent,
  },
];
