/** What the walkthroughs (`npm run demo:*`) share: a REST client that prints each request as curl, and Chromium. */
import { chromium, type Browser } from 'playwright-core';

export interface Answer {
  status: number;
  body: any;
}

export type Send = (
  method: string,
  path: string,
  init?: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> },
) => Promise<Answer>;

/** Requests to the REST API, each printed as the curl that sends it, with the answer. */
export function restClient(base: string, log: (line: string) => void): Send {
  return async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (init.json !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(init.json)];
    if (init.form !== undefined)
      [headers['content-type'], body] = [
        'application/x-www-form-urlencoded',
        new URLSearchParams(init.form).toString(),
      ];
    const shown = Object.entries(headers).map(([name, value]) => ` -H '${name}: ${value}'`);
    log(`\n$ curl -s -X ${method} ${base}${path}${shown.join('')}${body ? ` -d '${body}'` : ''}`);
    const response = await fetch(`${base}${path}`, { method, headers, ...(body ? { body } : {}) });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    log(`${response.status} ${text ? JSON.stringify(parsed, null, 2) : ''}`);
    return { status: response.status, body: parsed };
  };
}

export const expectStatus = (answer: Answer, status: number, what: string): any => {
  if (answer.status !== status)
    throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

export const launchChromium = (path?: string): Promise<Browser> =>
  chromium.launch({
    executablePath: path ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
