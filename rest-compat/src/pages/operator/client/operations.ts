/** The console's GraphQL documents: only fields of the public schema an operator may read. */

export interface Operator {
  name: string;
  keyId: string | null;
}

export const CURRENT_OPERATOR = '{ currentOperator { name keyId } }';

export interface MerchantRow {
  id: string;
  name: string;
  status: string;
  mode: string;
  createdAt: string;
}

export interface BankRow {
  handle: string;
  displayName: string;
  status: string;
  institutionCode: string;
}

export interface TppRow {
  id: string;
  name: string;
  status: string;
  mode: string;
  securityProfile: string;
  createdAt: string;
}

export const PARTICIPANTS = `query OperatorParticipants($search: String) {
  merchants(search: $search) { id name status mode createdAt }
  banks { handle displayName status institutionCode }
  tpps(search: $search) { id name status mode securityProfile createdAt }
}`;

export interface MerchantRecord extends MerchantRow {
  webhookUrl: string | null;
  settlementIban: string | null;
}

export const MERCHANT = `query OperatorMerchant($id: ID!) {
  merchant(id: $id) { id name status mode createdAt webhookUrl settlementIban }
}`;

export interface Position {
  currency: string;
  livemode: boolean;
  netDebitCap: number | null;
  position: number;
  reserved: number;
  headroom: number | null;
  lastCycleId: string | null;
}

export interface BankRecord extends BankRow {
  country: string;
  createdAt: string;
  positions: Position[] | null;
}

export const BANK = `query OperatorBank($handle: String!) {
  bank(handle: $handle) {
    handle displayName status institutionCode country createdAt
    positions { currency livemode netDebitCap position reserved headroom lastCycleId }
  }
}`;

/** A bank's positions, live (issue 50): the router sends them again each time they change. */
export const BANK_POSITIONS_LIVE = `subscription OperatorBankPositions($handle: String!) {
  bankPositionsUpdated(handle: $handle) { currency livemode netDebitCap position reserved headroom lastCycleId }
}`;

export interface TppRecord {
  mode: string;
  securityProfile: string;
  createdAt: string;
  id: string;
  name: string;
  status: string;
}

export const TPP = `query OperatorTpp($id: ID!) { tpp(id: $id) { id name status mode securityProfile createdAt } }`;

/** Each participant kind's suspend and resume mutations; the answer is its new status. */
export const SUSPENSION = {
  merchant: {
    suspend:
      'mutation OperatorSuspendMerchant($id: ID!, $reason: String) { suspendMerchant(id: $id, reason: $reason) { status } }',
    resume:
      'mutation OperatorResumeMerchant($id: ID!, $reason: String) { resumeMerchant(id: $id, reason: $reason) { status } }',
  },
  bank: {
    suspend:
      'mutation OperatorSuspendBank($id: String!, $reason: String) { suspendBank(handle: $id, reason: $reason) { status } }',
    resume:
      'mutation OperatorResumeBank($id: String!, $reason: String) { resumeBank(handle: $id, reason: $reason) { status } }',
  },
  tpp: {
    suspend:
      'mutation OperatorSuspendTpp($id: ID!, $reason: String) { suspendTpp(id: $id, reason: $reason) { status } }',
    resume: 'mutation OperatorResumeTpp($id: ID!, $reason: String) { resumeTpp(id: $id, reason: $reason) { status } }',
  },
} as const;

export type ParticipantKind = keyof typeof SUSPENSION;

export interface CyclePosition {
  bankHandle: string;
  currency: string;
  netAmount: number;
  direction: string;
  status: string;
  coreReference: string;
  attempts: number;
  lastError: string | null;
}

export interface CycleRow {
  id: string;
  livemode: boolean;
  status: string;
  openedAt: string;
  closedAt: string | null;
  settledAt: string | null;
  obligationCount: number;
  trigger: string;
  positions: CyclePosition[];
}

const CYCLE_FIELDS = `edges { node { id livemode status openedAt closedAt settledAt obligationCount trigger
      positions { bankHandle currency netAmount direction status coreReference attempts lastError } } }`;

export const CYCLES = `query OperatorCycles {
  settlementCycles(first: 20) {
    ${CYCLE_FIELDS}
  }
}`;

/** The same cycles, live (issue 50): sent again when a cycle closes or a position gets a core result. */
export const CYCLES_LIVE = `subscription OperatorCyclesLive {
  settlementCyclesUpdated(first: 20) {
    ${CYCLE_FIELDS}
  }
}`;

export interface AuditEntry {
  auditId: string;
  at: string;
  actor: { kind: string; id: string | null; name: string | null };
  action: string;
  target: string;
  changes: Record<string, { from?: unknown; to?: unknown }>;
  ip: string | null;
  requestId: string | null;
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  from?: string;
  to?: string;
}

export const AUDIT_LOG = `query OperatorAuditLog($actor: String, $action: String, $target: String, $from: DateTimeISO, $to: DateTimeISO, $first: Int!, $after: ID) {
  auditLog(actor: $actor, action: $action, target: $target, from: $from, to: $to, first: $first, after: $after) {
    edges { node { auditId at actor { kind id name } action target changes ip requestId } }
    pageInfo { hasNextPage endCursor }
  }
}`;

export interface AuditPage {
  auditLog: { edges: Array<{ node: AuditEntry }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

export interface AdminKeyRow {
  id: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  createdBy: string | null;
  /** Console sessions signed in with it now (they end with it). */
  consoleSessionCount: number;
}

export const ADMIN_KEYS = '{ adminKeys { id name createdAt revokedAt createdBy consoleSessionCount } }';

export const CREATE_ADMIN_KEY = `mutation OperatorCreateAdminKey($name: String!) {
  createAdminKey(input: { name: $name }) { id name adminKey }
}`;

export const REVOKE_ADMIN_KEY = `mutation OperatorRevokeAdminKey($id: ID!) {
  revokeAdminKey(id: $id) { id revokedAt revokedWith { id name } }
}`;

export interface AttentionItem {
  sessionId: string;
  kind: string;
  step: string;
  reason: string;
  since: string;
  amount: number;
  currency: string;
  debtorBank: string | null;
  debtorIban: string;
  creditorBank: string;
  creditorIban: string;
  sessionStatus: string;
  failureCode: string | null;
  debitBookedAt: string | null;
  creditBookedAt: string | null;
  reversalBookedAt: string | null;
  lastError: string | null;
  resolution: string | null;
  resolvedAt: string | null;
}

const ATTENTION_FIELDS = `sessionId kind step reason since amount currency debtorBank debtorIban creditorBank creditorIban
  sessionStatus failureCode debitBookedAt creditBookedAt reversalBookedAt lastError resolution resolvedAt`;

export const ATTENTION = `query OperatorAttention { movementsNeedingAttention(first: 50) { edges { node { ${ATTENTION_FIELDS} } } } }`;

export const RESOLVE_MOVEMENT = `mutation OperatorResolveMovement($id: ID!, $action: MovementResolution!, $note: String!) {
  resolveMovement(sessionId: $id, action: $action, note: $note) { ${ATTENTION_FIELDS} }
}`;

export const RETRY_POSITION = `mutation OperatorRetryPosition($cycleId: ID!, $bankHandle: String!, $currency: String!) {
  retrySettlementPosition(cycleId: $cycleId, bankHandle: $bankHandle, currency: $currency) { status attempts }
}`;
