import type { AnyEntity, Configuration, EntityData, LoggingOptions, QueryResult, Transaction } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { PostgreSqlConnection, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { boundParameters } from './bound-parameters';
import { queryDirect } from './direct-query';

/**
 * MikroORM's PostgreSQL connection, but statements with values go out with their values as
 * parameters, not written into the text (boundParameters): the same text each time, so the pool
 * prepares it once per connection and PostgreSQL plans it once (prepared-statements.ts; issue 53:
 * planning was most of what several of a payment's statements cost). Outside a transaction they
 * go straight to a connection of the pool (direct-query.ts), not through knex.raw.
 */
export class BoundParametersConnection extends PostgreSqlConnection {
  override async execute<
    T extends QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[] = EntityData<AnyEntity>[],
  >(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    ctx?: Transaction,
    loggerContext?: LoggingOptions,
  ): Promise<T> {
    const bound =
      typeof queryOrKnex === 'string' && params.length > 0
        ? boundParameters(queryOrKnex, params, (id) => this.platform.quoteIdentifier(id))
        : undefined;
    if (!bound) return super.execute<T>(queryOrKnex, params, method, ctx, loggerContext);
    await this.ensureConnection();
    return this.executeQuery(
      queryOrKnex as string,
      async () => {
        if (!ctx) return this.transformRawResult<T>(await queryDirect(this.getKnex(), bound), method);
        const query = this.getKnex().raw(bound.sql, bound.values as Knex.RawBinding[]);
        query.transacting(ctx as Knex.Transaction);
        return this.transformRawResult<T>(await query, method);
      },
      { query: queryOrKnex as string, params, ...loggerContext },
    );
  }
}

/** PostgreSqlDriver with BoundParametersConnection (the driver takes its connection class in a constructor PostgreSqlDriver does not pass on). */
export class GatewayPostgreSqlDriver extends PostgreSqlDriver {
  constructor(config: Configuration) {
    super(config);
    (this as unknown as { connection: PostgreSqlConnection }).connection = new BoundParametersConnection(this.config);
  }
}
