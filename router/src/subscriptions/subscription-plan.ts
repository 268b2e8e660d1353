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
import { GatewayError, type Principal } from '@gateway/kernel';
import {
  isSubscriptionField,
  SUBSCRIPTION_FIELDS,
  type SubscriptionField,
  type SubscriptionFieldDeclaration,
} from './subscription-fields';

/** Response key of the status the router adds to every query it runs (removed before sending). */
export const TRACKED_STATUS_KEY = '_subscriptionStatus';

/**
 * How one subscription is served: the subscriber's own selection, run as a query through the
 * gateway for each event (so fields of other subgraphs resolve and authorization is checked with
 * the subscriber's principal every time).
 */
export interface SubscriptionPlan {
  field: SubscriptionField;
  /** How the field is served (events, status order, who may subscribe). */
  declaration: SubscriptionFieldDeclaration;
  aggregateType: string;
  /** The aggregate followed (the declaration's id argument). */
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
function statusKeysOf(
  selectionSet: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): string[] {
  if (!selectionSet) return [];
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD)
      return selection.name.value === 'status' ? [selection.alias?.value ?? 'status'] : [];
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

  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = payload.operationName
    ? operations.find((o) => o.name?.value === payload.operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  if (!operation) return refuse('the document must hold one operation, or name it with operationName');
  if (operation.operation !== OperationTypeNode.SUBSCRIPTION)
    return refuse('this WebSocket serves subscriptions; send queries and mutations over HTTP POST /graphql');
  const roots = operation.selectionSet.selections;
  const root = roots[0];
  if (roots.length !== 1 || root?.kind !== Kind.FIELD || !isSubscriptionField(root.name.value)) {
    return refuse(`a subscription selects exactly one of: ${Object.keys(SUBSCRIPTION_FIELDS).join(', ')}`);
  }
  const field = root.name.value;
  const declaration: SubscriptionFieldDeclaration = SUBSCRIPTION_FIELDS[field];
  const variables = payload.variables ?? {};
  const idArgument = root.arguments?.find((argument) => argument.name.value === declaration.idArgument)?.value;
  const aggregateId =
    declaration.idArgument === undefined
      ? field
      : idArgument?.kind === Kind.VARIABLE
        ? variables[idArgument.name.value]
        : idArgument?.kind === Kind.STRING
          ? idArgument.value
          : undefined;
  if (typeof aggregateId !== 'string' || !aggregateId) return refuse(`${declaration.idArgument}: required`);

  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const responseKey = root.alias?.value ?? root.name.value;
  // The status is always read, selected or not, so every message can be placed in order.
  const trackedStatus: FieldNode = {
    kind: Kind.FIELD,
    alias: { kind: Kind.NAME, value: TRACKED_STATUS_KEY },
    name: { kind: Kind.NAME, value: 'status' },
  };
  const queryRoot: FieldNode = {
    ...root,
    alias: { kind: Kind.NAME, value: responseKey },
    name: { kind: Kind.NAME, value: declaration.queryField },
    selectionSet: {
      kind: Kind.SELECTION_SET,
      selections: [...(root.selectionSet?.selections ?? []), ...(declaration.view ? [] : [trackedStatus])],
    },
  };
  const query: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        ...operation,
        operation: OperationTypeNode.QUERY,
        selectionSet: { kind: Kind.SELECTION_SET, selections: [queryRoot] },
      },
      ...fragments.values(),
    ],
  };
  return {
    field,
    declaration,
    aggregateType: declaration.aggregateType,
    aggregateId,
    query: print(query),
    variables,
    operationName: operation.name?.value,
    responseKey,
    statusKeys: declaration.view ? [] : statusKeysOf(root.selectionSet, fragments),
    statusRank: new Map(
      declaration.statusOrder.flatMap((statuses, rank) => statuses.map((status) => [status, rank] as const)),
    ),
  };
}

/**
 * A credential of a kind the field does not serve gets the error a stranger gets from the query
 * (SESSION_NOT_FOUND, CONSENT_NOT_FOUND), before any query runs: a merchant cannot learn whether
 * a consent exists. Which objects an allowed kind may follow stays the subgraph's decision.
 */
export function refusalFor(plan: SubscriptionPlan, principal: Principal): GraphQLError[] | undefined {
  if (plan.declaration.subscribers.includes(principal.kind)) return undefined;
  return [plan.declaration.refusal(plan.aggregateId)];
}

/**
 * A message reports the status the event moved the object to, even when the object has moved
 * on by the time the query runs (PROCESSING -> COMPLETED can take milliseconds): every change is
 * seen, in order. The other fields are read when the message is built.
 */
export function applyEventStatus<T extends { data?: Record<string, unknown> | null }>(
  result: T,
  plan: SubscriptionPlan,
  status: string | undefined,
): T {
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
  if (!object || !(TRACKED_STATUS_KEY in object))
    return { result: applyEventStatus(raw, plan, eventStatus), status: eventStatus };
  const { [TRACKED_STATUS_KEY]: queried, ...visible } = object;
  const result = applyEventStatus({ ...raw, data: { ...raw.data, [plan.responseKey]: visible } }, plan, eventStatus);
  return { result, status: eventStatus ?? (typeof queried === 'string' ? queried : undefined) };
}
