import { LRUCache } from 'lru-cache';
import { BREAK, parse, specifiedRules, validate, visit, type DocumentNode, type GraphQLSchema } from 'graphql';

/** Distinct documents kept: the router sends a few dozen query plans' fetches, the services fewer. */
const DEFAULT_LIMIT = 1000;
/**
 * Query text kept in all, in characters (the documents' syntax trees take several times that): a
 * bound on memory whatever the callers send, as Apollo's own document store has (30 MiB).
 */
const DEFAULT_BUDGET = 2 * 1024 * 1024;
/** A document longer than this is never kept: Apollo answers it each time. */
const LONGEST = 64 * 1024;

/**
 * The documents that parsed and validated against the subgraph's schema, by query text: the lean
 * path (lean-graphql.ts) executes them without Apollo's request pipeline. A document that fails
 * either step is not remembered, so Apollo sees it each time and answers its errors as it always
 * has. A document asking for __schema or __type is never taken: introspection stays with Apollo,
 * whose NoIntrospection rule refuses it in production (every other rule Apollo applies is graphql-js's
 * specifiedRules, the ones used here, so whatever is kept Apollo would accept too).
 */
export class KnownDocuments {
  private readonly documents: LRUCache<string, DocumentNode>;
  private readonly longest: number;

  constructor(
    private readonly schema: GraphQLSchema,
    limits: { entries: number; characters: number } = { entries: DEFAULT_LIMIT, characters: DEFAULT_BUDGET },
  ) {
    // Least recently used goes first once either bound is reached; a document's size is its text.
    this.documents = new LRUCache({
      max: limits.entries,
      maxSize: limits.characters,
      sizeCalculation: (_document, query) => query.length,
    });
    this.longest = Math.min(LONGEST, limits.characters);
  }

  /** The document of `query` if it is known good (learnt now on first sight), else undefined. */
  get(query: string): DocumentNode | undefined {
    const known = this.documents.get(query);
    if (known) return known;
    if (query.length > this.longest) return undefined;
    const document = this.learn(query);
    if (document) this.documents.set(query, document);
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
