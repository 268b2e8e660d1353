import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '@gateway/kernel';
import type { DemoFile } from './demo-data';

/** A seeding step could not be done; the message says what to do. */
export class DemoSeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoSeedError';
  }
}

export function readDemoFile(file: string): DemoFile | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DemoFile;
  } catch {
    // Written atomically, so only a hand edit gets here: seed afresh rather than refuse to start.
    return undefined;
  }
}

/** Mode 0600: it holds the demo's keys. Atomic: a kill while writing keeps the previous progress. */
export function saveDemoFile(file: string, demo: DemoFile): void {
  writeFileAtomicSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
}

export interface RestAnswer {
  status: number;
  body: any;
}

export type Rest = (
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) => Promise<RestAnswer>;

export function restClient(baseUrl: string): Rest {
  return async (method, path, headers, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
}

/** The answer's body when it is a success; otherwise a DemoSeedError naming the call. */
export function expectOk(answer: RestAnswer, what: string): any {
  if (answer.status < 300) return answer.body;
  throw new DemoSeedError(`demo setup: ${what} answered ${answer.status} ${JSON.stringify(answer.body)}`);
}

/**
 * The saved progress, if it belongs to this database: its first saved bank key must still open
 * that bank's record. Otherwise (the database was moved aside or deleted, demo.json kept) the
 * saved ids and keys mean nothing here and the seed starts over.
 */
export async function savedProgress(rest: Rest, saved: DemoFile | undefined): Promise<DemoFile | undefined> {
  const bank = saved?.banks?.find((b) => b.bank_key);
  if (!saved || !bank) return saved;
  const answer = await rest('GET', `/banks/${bank.bank_handle}`, { 'x-service-bank-key': bank.bank_key });
  return answer.status === 200 ? saved : undefined;
}
