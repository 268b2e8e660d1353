import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { createLogger } from '@gateway/kernel';
import type { Database } from '@gateway/db';
import { startSandboxBank, type SandboxBank, type SandboxBankOptions } from '../sandbox-bank';

/** Helpers for this package's specs (and the client's): real servers, no mocks. */
export const TEST_INTERNAL_KEY = 'sik_test_internal_key_0123456789';
export const silentLogger = createLogger('test', 'silent');

export function startTestBank(db: Database, overrides: Partial<SandboxBankOptions> = {}): Promise<SandboxBank> {
  return startSandboxBank({
    handle: 'bank1',
    institutionCode: '001',
    internalKey: TEST_INTERNAL_KEY,
    db,
    logger: silentLogger,
    confirmDelayMs: { min: 5, max: 20 },
    ...overrides,
  });
}

export interface Answer {
  status: number;
  body: any;
  headers: IncomingHttpHeaders;
}

/** One HTTP call to a sandbox bank, with the internal key unless told otherwise (null: none). */
export async function call(
  base: { url: string },
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  key: string | null = TEST_INTERNAL_KEY,
): Promise<Answer> {
  const response = await request(`${base.url}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(key !== null ? { 'x-service-internal-key': key } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    body: text ? JSON.parse(text) : null,
    headers: response.headers as IncomingHttpHeaders,
  };
}

export interface ReceivedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface Receiver {
  url: string;
  received: ReceivedCall[];
  /** Resolves once `count` calls have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  stop(): Promise<void>;
}

/** A stand-in for the gateway: records every call and answers what `answer` says. */
export async function startReceiver(
  answer: (call: ReceivedCall, index: number) => { status: number; body?: unknown } = () => ({
    status: 200,
    body: { received: true },
  }),
): Promise<Receiver> {
  const received: ReceivedCall[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const entry: ReceivedCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
      };
      received.push(entry);
      const { status, body } = answer(entry, received.length - 1);
      res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
      waiters.splice(0).forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} calls, expected ${count}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.slice(0, count);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
