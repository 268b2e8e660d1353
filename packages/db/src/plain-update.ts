import { Utils, type EntityMetadata, type EntityName, type EntityProperty, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * `data` as the columns and values a flush would write (the driver's mapping, custom types
 * converted), mapped one property at a time. Why: the driver renames each key of the object it
 * maps in place (deletes and re-adds every key, per key), which costs O(n²) a row and put the
 * ORM's renameKey at the top of a payment's profile (issue 53). Mapped alone, a property's
 * columns and value are the same.
 */
export function rowOf<T extends object>(
  em: EntityManager,
  meta: EntityMetadata<T>,
  data: Partial<T>,
): Record<string, unknown> {
  const driver = em.getDriver();
  const platform = em.getPlatform();
  const properties = meta.properties as Record<string, EntityProperty<T> | undefined>;
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const prop = properties[key];
    if (!prop || !ownColumn(prop)) {
      Object.assign(row, driver.mapDataToFieldNames({ [key]: value }, true, meta.properties, true));
      continue;
    }
    // A scalar of one column: what the driver's mapping does to it (DatabaseDriver.mapDataToFieldNames), done here.
    let column = value;
    if (prop.customType) {
      if (!platform.isRaw(value))
        column = prop.customType.convertToDatabaseValue(value, platform, { fromQuery: true, key, mode: 'query-data' });
    } else if (Array.isArray(value) || Utils.isPlainObject(value)) column = JSON.stringify(value);
    row[prop.fieldNames[0]!] = column;
  }
  return row;
}

/** A scalar property stored in one column of its own, with no SQL conversion: rowOf maps it itself. */
function ownColumn(prop: EntityProperty): boolean {
  return (
    prop.kind === 'scalar' && !prop.embeddedProps && !prop.hasConvertToDatabaseValueSQL && prop.fieldNames?.length === 1
  );
}

/**
 * The query builder's UPDATE of `entity` (`… returning 1`), written without building a query when
 * its conditions are equalities on plain columns and its changes are values or raw SQL
 * (`attempts + 1`), as every state move's and step's update is: the same text and bindings
 * (one-statement.spec holds them to the builder's), at a fraction of the cost (building them was
 * a third of a payment's ORM time, issue 53). `also` is SQL and-ed to the conditions. Anything
 * else (an operator, a null, a relation): undefined, and the caller asks the builder.
 */
export function plainUpdate<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  changes: Partial<T>,
  also?: string,
): { sql: string; bindings: unknown[] } | undefined {
  const meta = plainMeta(em, entity, where);
  if (!meta) return undefined;
  // The builder adds to these: a version property's increment.
  if (meta.versionProperty) return undefined;
  const platform = em.getPlatform();
  const plain = plainConditions(em, meta, where);
  if (!plain || Object.values(changes).some((value) => value === undefined)) return undefined;
  const row = rowOf(em, meta, changes);
  const columns = Object.keys(row);
  if (columns.length === 0) return undefined;
  // A raw change (attempts + 1) is bound as the builder binds it, and written into the text when
  // sent (boundParameters); a type converted in SQL maps a value to raw SQL, which the builder
  // writes into the text itself: that update is the builder's.
  const rawChanges = Object.values(changes).filter((value) => platform.isRaw(value)).length;
  if (Object.values(row).filter((value) => platform.isRaw(value)).length !== rawChanges) return undefined;
  const sets = columns.map((column) => `"${column}" = ?`);
  const bindings = Object.values(row);
  const conditions = also ? [...plain.conditions, `(${also})`] : plain.conditions;
  return {
    sql: `update ${tableOf(em, meta)} set ${sets.join(', ')} where ${conditions.join(' and ')} returning 1`,
    bindings: [...bindings, ...plain.bindings],
  };
}

/**
 * `select 1 … for update` of the rows of `entity` matching `where`, written without building a
 * query when its conditions are equalities on plain columns (a lock of a movement by id and
 * status, every payment's): the builder's text without its table alias, at a fraction of the
 * cost (issue 53). Anything else: undefined, and the caller asks the builder.
 */
export function plainLock<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
): { sql: string; bindings: unknown[] } | undefined {
  const meta = plainMeta(em, entity, where);
  const plain = meta && plainConditions(em, meta, where);
  if (!meta || !plain) return undefined;
  return {
    sql: `select 1 from ${tableOf(em, meta)} where ${plain.conditions.join(' and ')} for update`,
    bindings: plain.bindings,
  };
}

/** The metadata of `entity` when `where` is a plain object and the builder would add no condition of its own (an inheritance discriminator's). */
function plainMeta<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
): EntityMetadata<T> | undefined {
  if (!Utils.isPlainObject(where)) return undefined;
  const meta = em.getMetadata().get<T>(Utils.className(entity));
  return meta.discriminatorValue !== undefined ? undefined : meta;
}

/** `where` as equalities on plain columns (`"column" = ?`) and their bindings; undefined for anything else (an operator, a null, a relation). */
function plainConditions<T extends object>(
  em: EntityManager,
  meta: EntityMetadata<T>,
  where: FilterQuery<T>,
): { conditions: string[]; bindings: unknown[] } | undefined {
  const platform = em.getPlatform();
  const conditions: string[] = [];
  const bindings: unknown[] = [];
  for (const [key, value] of Object.entries(where as Record<string, unknown>)) {
    const prop = (meta.properties as Record<string, EntityProperty<T> | undefined>)[key];
    const plainValue = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    if (
      !prop ||
      prop.kind !== 'scalar' ||
      prop.fieldNames?.length !== 1 ||
      prop.hasConvertToDatabaseValueSQL ||
      !plainValue
    )
      return undefined;
    conditions.push(`"${prop.fieldNames[0]}" = ?`);
    bindings.push(
      prop.customType
        ? prop.customType.convertToDatabaseValue(value, platform, { fromQuery: true, key, mode: 'query' })
        : value,
    );
  }
  return conditions.length === 0 ? undefined : { conditions, bindings };
}

/** The quoted, schema-qualified table of `meta` (OneStatement.tableOf's too). */
export function tableOf(em: EntityManager, meta: EntityMetadata): string {
  const schema = meta.schema ?? em.config.get('schema');
  return `${schema ? `"${schema}".` : ''}"${meta.tableName}"`;
}
