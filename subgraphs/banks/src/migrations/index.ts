import type { MigrationObject } from '@gateway/db';
import { Migration20261122000100_banks } from './Migration20261122000100_banks';
import { Migration20261130000100_settlement_accounts } from './Migration20261130000100_settlement_accounts';
import { Migration20261203000100_sandbox_core } from './Migration20261203000100_sandbox_core';
import { Migration20261205000100_sca_exemption_caps } from './Migration20261205000100_sca_exemption_caps';
import { Migration20261206000200_banks_outbox } from './Migration20261206000200_banks_outbox';
import { Migration20270103000100_outbox_notify } from './Migration20270103000100_outbox_notify';
import { Migration20270110000100_notify_after_commit } from './Migration20270110000100_notify_after_commit';

/** Committed migrations of the banks schema, in order. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122000100_banks', class: Migration20261122000100_banks },
  { name: 'Migration20261130000100_settlement_accounts', class: Migration20261130000100_settlement_accounts },
  { name: 'Migration20261203000100_sandbox_core', class: Migration20261203000100_sandbox_core },
  { name: 'Migration20261205000100_sca_exemption_caps', class: Migration20261205000100_sca_exemption_caps },
  { name: 'Migration20261206000200_banks_outbox', class: Migration20261206000200_banks_outbox },
  { name: 'Migration20270103000100_outbox_notify', class: Migration20270103000100_outbox_notify },
  { name: 'Migration20270110000100_notify_after_commit', class: Migration20270110000100_notify_after_commit },
];
