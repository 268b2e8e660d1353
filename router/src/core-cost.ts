import {
  buildASTSchema,
  getNamedType,
  isAbstractType,
  isObjectType,
  isInterfaceType,
  Kind,
  parse,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { OperationSummary } from './operation';
import type { LimitCharges } from './rate-limit-charge';

/** `Type.field` -> the `@cost` weight its subgraph declared (a field whose resolver calls a bank core). */
export type CostTable = ReadonlyMap<string, number>;

/** The `@cost(weight:)` of every field of the supergraph that declares one. */
export function costTableOf(supergraphSdl: string): CostTable {
  const table = new Map<string, number>();
  for (const definition of parse(supergraphSdl).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.INTERFACE_TYPE_DEFINITION) continue;
    for (const field of definition.fields ?? []) {
      const weight = field.directives
        ?.find((directive) => directive.name.value === 'cost')
        ?.arguments?.find((arg) => arg.name.value === 'weight')?.value;
      if (weight?.kind === Kind.INT) table.set(`${definition.name.value}.${field.name.value}`, Number(weight.value));
    }
  }
  return table;
}

/**
 * Prices selections by the bank-core calls they ask for: a root field costs its `@cost` weight (1
 * without one, as every root field does), plus the weight of every core-backed field selected
 * under it, each selection counted (aliases and fragment spreads included), so
 * `{ obAccounts { t0: transactions … t28: transactions … } }` costs 30 points, not 1. What a
 * list multiplies at run time (one statement per account) is not known here: the subgraph caps
 * the core calls of one request (open-banking's OB_MAX_CORE_CALLS_PER_REQUEST).
 */
export function coreCallPricing(schema: GraphQLSchema, table: CostTable) {
  // Keyed by the parsed document's nodes (operation.ts keeps one parse per document): a repeated
  // document is priced once, and a fragment once per document however often it is spread.
  const priced = new WeakMap<FieldNode | FragmentDefinitionNode, number>();
  const pricing = new Set<FragmentDefinitionNode>();

  const weightOf = (type: GraphQLNamedType, field: string): number => {
    if (!isAbstractType(type)) return table.get(`${type.name}.${field}`) ?? 0;
    // Through an interface or union: the dearest of the types it may turn out to be.
    return Math.max(
      table.get(`${type.name}.${field}`) ?? 0,
      ...schema.getPossibleTypes(type).map((possible) => table.get(`${possible.name}.${field}`) ?? 0),
    );
  };

  const fragmentPoints = (
    fragment: FragmentDefinitionNode,
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ): number => {
    const known = priced.get(fragment);
    if (known !== undefined) return known;
    // A fragment cycle is refused by graphql's validation; it is not followed here.
    if (pricing.has(fragment)) return 0;
    pricing.add(fragment);
    const type = schema.getType(fragment.typeCondition.name.value);
    const points = type ? selectionPoints(type, fragment.selectionSet, fragments) : 0;
    pricing.delete(fragment);
    priced.set(fragment, points);
    return points;
  };

  /** The core-backed fields selected under one field (not the field's own weight). */
  const underPoints = (
    parent: GraphQLNamedType,
    field: FieldNode,
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ): number => {
    const known = priced.get(field);
    if (known !== undefined) return known;
    // An unknown field is refused by validation; it costs nothing here.
    const definition =
      isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[field.name.value] : undefined;
    const points =
      definition && field.selectionSet
        ? selectionPoints(getNamedType(definition.type), field.selectionSet, fragments)
        : 0;
    priced.set(field, points);
    return points;
  };

  function selectionPoints(
    parent: GraphQLNamedType,
    selectionSet: SelectionSetNode,
    fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  ): number {
    let points = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD)
        points += weightOf(parent, selection.name.value) + underPoints(parent, selection, fragments);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type) points += selectionPoints(type, selection.selectionSet, fragments);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment) points += fragmentPoints(fragment, fragments);
      }
    }
    return points;
  }

  // A root selection's price, once per parsed document (a selection belongs to one operation, of one type).
  const rootPriced = new WeakMap<FieldNode, number>();

  /**
   * The operation with each root field's `points`: its own weight (default 1) and the core-backed
   * fields under it. Given in place: the summary is made for this request (inspectOperation).
   */
  return (operation: OperationSummary): OperationSummary => {
    const root =
      operation.type === 'query'
        ? schema.getQueryType()
        : operation.type === 'mutation'
          ? schema.getMutationType()
          : schema.getSubscriptionType();
    if (!root) return operation;
    operation.fields.forEach((field, index) => {
      const selection = operation.selections[index]!;
      let points = rootPriced.get(selection);
      if (points === undefined) {
        points = (table.get(`${root.name}.${field.name}`) ?? 1) + underPoints(root, selection, operation.fragments);
        rootPriced.set(selection, points);
      }
      field.points = points;
    });
    return operation;
  };
}

/** The charges of the edge, with each operation priced by its bank-core calls first (the supergraph's `@cost`). */
export function chargingCoreCalls(charges: LimitCharges, supergraphSdl: string): LimitCharges {
  const price = coreCallPricing(
    buildASTSchema(parse(supergraphSdl), { assumeValidSDL: true }),
    costTableOf(supergraphSdl),
  );
  return { ...charges, operation: (principal, operation) => charges.operation(principal, price(operation)) };
}
