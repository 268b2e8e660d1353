import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  parse,
  print,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { GatewayError } from '@gateway/kernel';

/**
 * Subscription field -> the query field that reads the same object, the event aggregate it
 * follows, and the order its statuses are reached in (statuses of one rank are alternatives;
 * the last rank is final). A status only moves forward, so a subscriber never needs one that is
 * not later than the last it got.
 */
export const SUBSCRIPTION_FIELDS = {
  paymentSessionUpdated: {
    queryField: 'paymentSession',
    aggregateType: 'payment_session',
    statusOrder: [['PENDING'], ['PROCESSING'], ['SETTLEMENT_PENDING'], ['COMPLETED', 'FAILED', 'EXPIRED']],
  },
} as const;

/** Response key of the status the router adds to every query it runs (removed before sending). */
export const TRACKED_STATUS_KEY = '_subscriptionStatus';

export type SubscriptionField = keyof typeof SUBSCRIPTION_FIELDS;

/**
 * How one subscription is served: the subscriber's own selection, run as a query through the
 * gateway for each event (so fields of other subgraphs resolve and authorization is checked with
 * the subscriber's principal every time).
 */
export interface SubscriptionPlan {
  field: SubscriptionField;
  aggregateType: string;
  /** The aggregate followed (the `id` argument). */
  aggregateId: string;
  /** The query document, printed: `query { <responseKey>: paymentSession(id: …) { <selection> } }`. */
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
  /** Key of the root field in `data` (the subscriber's alias or the field name). */
  responseKey: string;
  /** Response keys of `status` selected directly on the object: set from the event (see applyEventStatus). */
  statusKeys: string[];
  /** Rank of each status (index in the field's statusOrder); the highest rank is final. */
  statusRank: ReadonlyMap<string, number>;
}

const refuse = (message: string): GraphQLError[] => [new GatewayError('VALIDATION_ERROR', message)];

/** The response keys under which the selection set asks for `status` on the root object. */
function statusKeysOf(selectionSet: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, seen = new Set<string>()): string[] {
  if (!selectionSet) return [];
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === 'status' ? [selection.alias?.value ?? 'status'] : [];
    if (selection.kind === Kind.INLINE_FRAGMENT) return statusKeysOf(selection.selectionSet, fragments, seen);
    const name = selection.name.value;
    if (seen.has(name)) return [];
    seen.add(name);
    return statusKeysOf(fragments.get(name)?.selectionSet, fragments, seen);
  });
}

/**
 * Checks a subscription request against the supergraph and turns it into its query; GraphQL
 * errors for the client when it is not a single supported subscription field.
 */
export function planSubscription(
  schema: GraphQLSchema,
  payload: { query: string; variables?: Record<string, unknown> | null; operationName?: string | null },
): SubscriptionPlan | GraphQLError[] {
  let document: DocumentNode;
  try {
    document = parse(payload.query);
  } catch (error) {
    return refuse((error as GraphQLError).message);
  }
  const errors = validate(schema, document);
  if (errors.length) return errors.map((error) => new GatewayError('VALIDATION_ERROR', error.message));

  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = payload.operationName ? operations.find((o) => o.name?.value === payload.operationName) : operations.length === 1 ? operations[0] : undefined;
  if (!operation) return refuse('the document must hold one operation, or name it with operationName');
  if (operation.operation !== OperationTypeNode.SUBSCRIPTION) return refuse('this WebSocket serves subscriptions; send queries and mutations over HTTP POST /graphql');
  const roots = operation.selectionSet.selections;
  const root = roots[0];
  if (roots.length !== 1 || root?.kind !== Kind.FIELD || !(root.name.value in SUBSCRIPTION_FIELDS)) {
    return refuse(`a subscription selects exactly one of: ${Object.keys(SUBSCRIPTION_FIELDS).join(', ')}`);
  }
  const field = root.name.value as SubscriptionField;
  const variables = payload.variables ?? {};
  const idArgument = root.arguments?.find((argument) => argument.name.value === 'id')?.value;
  const aggregateId = idArgument?.kind === Kind.VARIABLE ? variables[idArgument.name.value] : idArgument?.kind === Kind.STRING ? idArgument.value : undefined;
  if (typeof aggregateId !== 'string' || !aggregateId) return refuse('id: required');

  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const responseKey = root.alias?.value ?? root.name.value;
  // The status is always read, selected or not, so every message can be placed in order.
  const trackedStatus: FieldNode = { kind: Kind.FIELD, alias: { kind: Kind.NAME, value: TRACKED_STATUS_KEY }, name: { kind: Kind.NAME, value: 'status' } };
  const queryRoot: FieldNode = {
    ...root,
    alias: { kind: Kind.NAME, value: responseKey },
    name: { kind: Kind.NAME, value: SUBSCRIPTION_FIELDS[field].queryField },
    selectionSet: { kind: Kind.SELECTION_SET, selections: [...(root.selectionSet?.selections ?? []), trackedStatus] },
  };
  const query: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [{ ...operation, operation: OperationTypeNode.QUERY, selectionSet: { kind: Kind.SELECTION_SET, selections: [queryRoot] } }, ...fragments.values()],
  };
  return {
    field,
    aggregateType: SUBSCRIPTION_FIELDS[field].aggregateType,
    aggregateId,
    query: print(query),
    variables,
    operationName: operation.name?.value,
    responseKey,
    statusKeys: statusKeysOf(root.selectionSet, fragments),
    statusRank: new Map(SUBSCRIPTION_FIELDS[field].statusOrder.flatMap((statuses, rank) => statuses.map((status) => [status, rank] as const))),
  };
}

/** Which status an event reports: its data.status, as the payments subgraph writes it. */
export const eventStatus = (data: Record<string, unknown>): string | undefined => (typeof data.status === 'string' ? data.status : undefined);

/**
 * A message reports the status the event moved the session to, even when the session has moved
 * on by the time the query runs (PROCESSING -> COMPLETED can take milliseconds): every change is
 * seen, in order. The other fields are read when the message is built.
 */
export function applyEventStatus<T extends { data?: Record<string, unknown> | null }>(result: T, plan: SubscriptionPlan, status: string | undefined): T {
  const object = result.data?.[plan.responseKey] as Record<string, unknown> | null | undefined;
  if (!status || !object || !plan.statusKeys.length) return result;
  const patched = { ...object };
  for (const key of plan.statusKeys) patched[key] = status;
  return { ...result, data: { ...result.data, [plan.responseKey]: patched } };
}

/** A result as the subscriber sees it, and the status it reports (for ordering). */
export interface TrackedResult {
  result: ExecutionResult;
  status: string | undefined;
}

/**
 * Takes the router's own status field out of a query result. `eventStatus`: the status the event
 * moved the aggregate to, which the message reports (see applyEventStatus); the query's own when
 * there is no event (the state at subscription time).
 */
export function trackResult(raw: ExecutionResult, plan: SubscriptionPlan, eventStatus?: string): TrackedResult {
  const object = raw.data?.[plan.responseKey] as Record<string, unknown> | null | undefined;
  if (!object || !(TRACKED_STATUS_KEY in object)) return { result: applyEventStatus(raw, plan, eventStatus), status: eventStatus };
  const { [TRACKED_STATUS_KEY]: queried, ...visible } = object;
  const result = applyEventStatus({ ...raw, data: { ...raw.data, [plan.responseKey]: visible } }, plan, eventStatus);
  return { result, status: eventStatus ?? (typeof queried === 'string' ? queried : undefined) };
}
