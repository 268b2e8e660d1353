import type { Database } from './database';

/** Readiness probe: can the database answer within the deadline. */
export async function databaseReady(db: Database, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database timeout')), timeoutMs);
    });
    await Promise.race([db.knex.raw('select 1'), deadline]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
