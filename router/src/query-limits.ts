import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/** Introspection's root fields: their subtree is the schema, not data. */
const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/** An operation that reads only the schema (what GraphiQL and other tools send on load). */
const onlyIntrospection = (operation: OperationDefinitionNode): boolean =>
  operation.selectionSet.selections.every(
    (selection) => selection.kind === Kind.FIELD && INTROSPECTION_FIELDS.has(selection.name.value),
  );

/**
 * Validation rules that refuse expensive documents before planning: nesting deeper than
 * `maxDepth`, or more than `maxFields` field selections once fragments are expanded.
 * `exemptIntrospection` (outside production, where introspection is on): an operation selecting
 * only `__schema` / `__type` is not limited, so tools' standard introspection query (depth 15:
 * TypeRef's `ofType` chain; GraphiQL's among them) is answered; one that also reads data is
 * counted whole. In production Apollo refuses introspection.
 */
export function queryLimitRules(maxDepth: number, maxFields: number, exemptIntrospection = false) {
  return [
    (context: ValidationContext): ASTVisitor => ({
      Document(document) {
        const fragments = new Map<string, FragmentDefinitionNode>();
        for (const definition of document.definitions) {
          if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
        }
        let fields = 0;
        const walk = (selectionSet: SelectionSetNode, depth: number, seen: Set<string>): number => {
          let deepest = depth;
          for (const selection of selectionSet.selections) {
            if (selection.kind === Kind.FIELD) {
              fields += 1;
              if (selection.selectionSet) deepest = Math.max(deepest, walk(selection.selectionSet, depth + 1, seen));
            } else if (selection.kind === Kind.INLINE_FRAGMENT) {
              deepest = Math.max(deepest, walk(selection.selectionSet, depth, seen));
            } else {
              const fragment = fragments.get(selection.name.value);
              // A fragment cycle is reported by graphql's own rules; don't loop on it here.
              if (fragment && !seen.has(fragment.name.value)) {
                deepest = Math.max(
                  deepest,
                  walk(fragment.selectionSet, depth, new Set([...seen, fragment.name.value])),
                );
              }
            }
            if (fields > maxFields) return deepest;
          }
          return deepest;
        };
        for (const definition of document.definitions) {
          if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
          if (exemptIntrospection && onlyIntrospection(definition)) continue;
          const depth = walk(definition.selectionSet, 1, new Set());
          if (depth > maxDepth)
            context.reportError(new GraphQLError(`query depth ${depth} exceeds the limit of ${maxDepth}`));
          if (fields > maxFields) context.reportError(new GraphQLError(`query selects more than ${maxFields} fields`));
        }
      },
    }),
  ];
}
