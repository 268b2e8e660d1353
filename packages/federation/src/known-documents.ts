import { BREAK, parse, specifiedRules, validate, visit, type DocumentNode, type GraphQLSchema } from 'graphql';

/** Distinct documents kept: the router sends a few dozen query plans' fetches, the services fewer. */
const DEFAULT_LIMIT = 1000;

/**
 * The documents that parsed and validated against the subgraph's schema, by query text: the lean
 * path (lean-graphql.ts) executes them without Apollo's request pipeline. A document that fails
 * either step is not remembered, so Apollo sees it each time and answers its errors as it always
 * has. A document asking for __schema or __type is never taken: introspection stays with Apollo,
 * whose NoIntrospection rule refuses it in production (every other rule Apollo applies is graphql-js's
 * specifiedRules, the ones used here, so whatever is kept Apollo would accept too).
 */
export class KnownDocuments {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limit = DEFAULT_LIMIT,
  ) {}

  /** The document of `query` if it is known good (learnt now on first sight), else undefined. */
  get(query: string): DocumentNode | undefined {
    const known = this.documents.get(query);
    if (known) {
      // Least recently used goes first: a Map iterates in insertion order.
      this.documents.delete(query);
      this.documents.set(query, known);
      return known;
    }
    const document = this.learn(query);
    if (!document) return undefined;
    if (this.documents.size >= this.limit) this.documents.delete(this.documents.keys().next().value!);
    this.documents.set(query, document);
    return document;
  }

  get size(): number {
    return this.documents.size;
  }

  private learn(query: string): DocumentNode | undefined {
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return undefined;
    }
    if (asksIntrospection(document)) return undefined;
    return validate(this.schema, document, specifiedRules).length === 0 ? document : undefined;
  }
}

function asksIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '__schema' && node.name.value !== '__type') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}
