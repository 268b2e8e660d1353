import { SCALAR_TYPES, Utils, type EntityName, type EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Per ORM (its driver, which every fork shares): a fork that only makes untracked entities. Its
 * identity map stays empty (nothing is merged into it), so the factory never finds a managed
 * instance of the row to refresh and answer, whichever EntityManager the caller holds.
 */
const mappers = new WeakMap<object, EntityManager>();

function mapperOf(em: EntityManager): EntityManager {
  const driver = em.getDriver();
  let mapper = mappers.get(driver);
  if (!mapper) {
    mapper = em.fork({ clear: true, useContext: false });
    mappers.set(driver, mapper);
  }
  return mapper;
}

/**
 * A row read with raw SQL (`select s.* …`) as an entity no identity map holds, even when the
 * caller's holds the same row: what `em.fork().map(entity, row)` answers, without a fork per call,
 * the snapshot a managed entity keeps for its next flush, and the merge into an identity map
 * nobody reads (em.map's work: 0.2 ms of a checkout's authorization, issue 53). The row's columns
 * are mapped as em.map maps them (the driver's mapping, custom types converted, numbers and
 * booleans the driver answers as text fixed as the entity declares them). Nothing flushes it: a
 * caller that changes it writes the change itself (a OneStatement, a conditional update), as with
 * an entity loaded with disableIdentityMap.
 */
export function untracked<T extends object>(em: EntityManager, entity: EntityName<T>, row: Record<string, unknown>): T {
  const mapper = mapperOf(em);
  const meta = mapper.getMetadata().get<T>(Utils.className(entity));
  const data = mapper.getDriver().mapResult(row as never, meta) as Record<string, unknown>;
  const validator = mapper.getValidator();
  const properties = meta.properties as Record<string, EntityProperty<T> | undefined>;
  for (const key of Object.keys(data)) {
    const prop = properties[key];
    // The same properties em.map has the validator fix (EntityManager.map).
    if (
      prop?.kind === 'scalar' &&
      SCALAR_TYPES.includes(prop.runtimeType) &&
      !prop.customType &&
      (prop.setter || !prop.getter)
    )
      data[key] = validator.validateProperty(prop, data[key], data);
  }
  return mapper.getEntityFactory().create<T>(Utils.className(entity), data as never, {
    merge: false,
    refresh: true,
    convertCustomTypes: true,
    newEntity: false,
  });
}
