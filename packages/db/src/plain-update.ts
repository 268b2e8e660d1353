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
 * its conditions are equalities on plain columns and its changes are values, as every state move's
 * update is: the same text and bindings (one-statement.spec holds them to the builder's), at a
 * fraction of the cost (building them was a third of a payment's ORM time, issue 53). `also` is SQL
 * and-ed to the conditions. Anything else (an operator, a null, a relation, raw SQL such as
 * attempts + 1): undefined, and the caller asks the builder.
 */
export function plainUpdate<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  changes: Partial<T>,
  also?: string,
): { sql: string; bindings: unknown[] } | undefined {
  if (!Utils.isPlainObject(where)) return undefined;
  const meta = em.getMetadata().get<T>(Utils.className(entity));
  // The builder adds to these: a version property's increment, an inheritance discriminator's condition.
  if (meta.versionProperty || meta.discriminatorValue !== undefined) return undefined;
  const platform = em.getPlatform();
  const conditions: string[] = [];
  const conditionBindings: unknown[] = [];
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
    conditionBindings.push(
      prop.customType
        ? prop.customType.convertToDatabaseValue(value, platform, { fromQuery: true, key, mode: 'query' })
        : value,
    );
  }
  if (conditions.length === 0 || Object.values(changes).some((value) => value === undefined || platform.isRaw(value)))
    return undefined;
  const row = rowOf(em, meta, changes);
  const columns = Object.keys(row);
  // A type converted in SQL maps to raw SQL, which the builder writes into the text rather than binding it.
  if (columns.length === 0 || Object.values(row).some((value) => platform.isRaw(value))) return undefined;
  if (also) conditions.push(`(${also})`);
  const schema = meta.schema ?? em.config.get('schema');
  const table = `${schema ? `"${schema}".` : ''}"${meta.tableName}"`;
  return {
    sql: `update ${table} set ${columns.map((column) => `"${column}" = ?`).join(', ')} where ${conditions.join(' and ')} returning 1`,
    bindings: [...Object.values(row), ...conditionBindings],
  };
}
