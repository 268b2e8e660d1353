import type { MigrationObject } from '@gateway/db';
import { Migration20261123000100_merchants } from './Migration20261123000100_merchants';
import { Migration20261123000150_outbox } from './Migration20261123000150_outbox';
import { Migration20261124000100_payment_sessions } from './Migration20261124000100_payment_sessions';
import { Migration20261124000200_webhook_deliveries } from './Migration20261124000200_webhook_deliveries';
import { Migration20261125000100_engine_outcomes } from './Migration20261125000100_engine_outcomes';
import { Migration20261128000100_settlement } from './Migration20261128000100_settlement';
import { Migration20261129000100_webhook_audience } from './Migration20261129000100_webhook_audience';
import { Migration20261129000100_order_movements } from './Migration20261129000100_order_movements';
import { Migration20261130000300_authorization_hash } from './Migration20261130000300_authorization_hash';
import { Migration20261130000400_event_order } from './Migration20261130000400_event_order';
import { Migration20261130000500_mandates } from './Migration20261130000500_mandates';
import { Migration20261130000600_execution_lease_token } from './Migration20261130000600_execution_lease_token';
import { Migration20261130000700_delivery_position_lease_tokens } from './Migration20261130000700_delivery_position_lease_tokens';
import { Migration20261202000100_outbox_relay_lease } from './Migration20261202000100_outbox_relay_lease';
import { Migration20261203000100_livemode } from './Migration20261203000100_livemode';
import { Migration20261203000200_checkout_checks_in_flight } from './Migration20261203000200_checkout_checks_in_flight';
import { Migration20261204000100_execution_movement_id } from './Migration20261204000100_execution_movement_id';
import { Migration20261205000100_refunds } from './Migration20261205000100_refunds';
import { Migration20261210000200_merchant_suspension } from './Migration20261210000200_merchant_suspension';
import { Migration20261220000100_webhook_endpoints } from './Migration20261220000100_webhook_endpoints';
import { Migration20261220000200_metadata } from './Migration20261220000200_metadata';
import { Migration20261220000300_report_indexes } from './Migration20261220000300_report_indexes';
import { Migration20261221000100_delivery_retention } from './Migration20261221000100_delivery_retention';
import { Migration20261228000100_webhook_held_and_replays } from './Migration20261228000100_webhook_held_and_replays';
import { Migration20261229000100_net_debit_positions } from './Migration20261229000100_net_debit_positions';
import { Migration20270101000100_vrp_movements } from './Migration20270101000100_vrp_movements';
import { Migration20270102000100_mandate_charge_refunds } from './Migration20270102000100_mandate_charge_refunds';
import { Migration20270103000100_wake_ups } from './Migration20270103000100_wake_ups';
import { Migration20270110000100_notify_after_commit } from './Migration20270110000100_notify_after_commit';

/** Committed migrations of the payments schema, in order. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261123000100_merchants', class: Migration20261123000100_merchants },
  { name: 'Migration20261123000150_outbox', class: Migration20261123000150_outbox },
  { name: 'Migration20261124000100_payment_sessions', class: Migration20261124000100_payment_sessions },
  { name: 'Migration20261124000200_webhook_deliveries', class: Migration20261124000200_webhook_deliveries },
  { name: 'Migration20261125000100_engine_outcomes', class: Migration20261125000100_engine_outcomes },
  { name: 'Migration20261128000100_settlement', class: Migration20261128000100_settlement },
  { name: 'Migration20261129000100_webhook_audience', class: Migration20261129000100_webhook_audience },
  { name: 'Migration20261129000100_order_movements', class: Migration20261129000100_order_movements },
  { name: 'Migration20261130000300_authorization_hash', class: Migration20261130000300_authorization_hash },
  { name: 'Migration20261130000400_event_order', class: Migration20261130000400_event_order },
  { name: 'Migration20261130000500_mandates', class: Migration20261130000500_mandates },
  { name: 'Migration20261130000600_execution_lease_token', class: Migration20261130000600_execution_lease_token },
  {
    name: 'Migration20261130000700_delivery_position_lease_tokens',
    class: Migration20261130000700_delivery_position_lease_tokens,
  },
  { name: 'Migration20261202000100_outbox_relay_lease', class: Migration20261202000100_outbox_relay_lease },
  { name: 'Migration20261203000100_livemode', class: Migration20261203000100_livemode },
  {
    name: 'Migration20261203000200_checkout_checks_in_flight',
    class: Migration20261203000200_checkout_checks_in_flight,
  },
  { name: 'Migration20261204000100_execution_movement_id', class: Migration20261204000100_execution_movement_id },
  { name: 'Migration20261205000100_refunds', class: Migration20261205000100_refunds },
  { name: 'Migration20261210000200_merchant_suspension', class: Migration20261210000200_merchant_suspension },
  { name: 'Migration20261220000100_webhook_endpoints', class: Migration20261220000100_webhook_endpoints },
  { name: 'Migration20261220000200_metadata', class: Migration20261220000200_metadata },
  { name: 'Migration20261220000300_report_indexes', class: Migration20261220000300_report_indexes },
  { name: 'Migration20261221000100_delivery_retention', class: Migration20261221000100_delivery_retention },
  {
    name: 'Migration20261228000100_webhook_held_and_replays',
    class: Migration20261228000100_webhook_held_and_replays,
  },
  { name: 'Migration20261229000100_net_debit_positions', class: Migration20261229000100_net_debit_positions },
  { name: 'Migration20270101000100_vrp_movements', class: Migration20270101000100_vrp_movements },
  {
    name: 'Migration20270102000100_mandate_charge_refunds',
    class: Migration20270102000100_mandate_charge_refunds,
  },
  { name: 'Migration20270103000100_wake_ups', class: Migration20270103000100_wake_ups },
  { name: 'Migration20270110000100_notify_after_commit', class: Migration20270110000100_notify_after_commit },
];
