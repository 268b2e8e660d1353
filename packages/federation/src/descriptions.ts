import { Kind, parse, type ASTNode, type DefinitionNode } from 'graphql';

/**
 * Federation's own machinery (`_Any`, `_Service`, `link__Import`, `federation__FieldSet`, …) is
 * described by its spec, not by us. Query, Mutation and Subscription are roots: their fields carry
 * the meaning, the root types have nothing to say.
 */
const exempt = (typeName: string): boolean =>
  typeName.startsWith('_') || typeName.includes('__') || ['Query', 'Mutation', 'Subscription'].includes(typeName);

const described = (node: ASTNode): boolean =>
  'description' in node && Boolean((node.description as { value?: string } | undefined)?.value?.trim());

/**
 * Every element of a subgraph's SDL a client can see that has no description: types, fields,
 * arguments, input fields and enum values, as `Type`, `Type.field`, `Type.field(argument)`.
 * Directive definitions are left out (the federation ones come from its spec).
 */
export function undocumentedElements(sdl: string): string[] {
  const missing: string[] = [];
  for (const definition of parse(sdl).definitions as readonly DefinitionNode[]) {
    if (!('name' in definition) || !definition.name || definition.kind === Kind.DIRECTIVE_DEFINITION) continue;
    const typeName = definition.name.value;
    if (typeName.startsWith('_') || typeName.includes('__')) continue;
    if (!exempt(typeName) && !described(definition)) missing.push(typeName);
    const members = 'fields' in definition ? definition.fields : 'values' in definition ? definition.values : undefined;
    for (const member of members ?? []) {
      const path = `${typeName}.${member.name.value}`;
      if (!described(member)) missing.push(path);
      for (const argument of 'arguments' in member ? (member.arguments ?? []) : []) {
        if (!described(argument)) missing.push(`${path}(${argument.name.value})`);
      }
    }
  }
  return missing;
}
