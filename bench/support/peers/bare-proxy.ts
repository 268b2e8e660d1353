/**
 * The least a Node gateway can cost, for bench/peers.ts (`floor`): an HTTP server that reads the
 * JSON body of a POST, parses it (any GraphQL gateway must read the document) and sends it to the
 * one subgraph with the client's signed principal and request id, through the same transport and pool settings as
 * our router (kernel's framed channel, else pooledHttp over an undici Agent), then answers with the
 * subgraph's answer. No authentication, limits, validation, planning or metrics: what our router
 * costs above this process's CPU per request is the router's own work; this much is Node's HTTP
 * towards the client and the framed channel towards the subgraph.
 * PEER_PORT, PEER_TARGET (the subgraph's /graphql URL).
 */
import { createServer } from 'node:http';
import { Agent } from 'undici';
import { betweenProcesses, pooledHttp, PRINCIPAL_HEADER, REQUEST_ID_HEADER, type LocalRequest } from '@gateway/kernel';

const target = process.env.PEER_TARGET!;
const forward = betweenProcesses(pooledHttp(new Agent({ keepAliveTimeout: 30_000, connections: 128 })));

createServer({ keepAliveTimeout: 72_000 }, (incoming, response) => {
  if (incoming.method !== 'POST') return void response.end('ready'); // the launcher's readiness probe
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const principal = incoming.headers[PRINCIPAL_HEADER];
    let body: LocalRequest['body'];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return void response.writeHead(400).end();
    }
    const requestId = incoming.headers[REQUEST_ID_HEADER];
    const headers: Record<string, string> =
      typeof principal === 'string' && typeof requestId === 'string'
        ? { [PRINCIPAL_HEADER]: principal, [REQUEST_ID_HEADER]: requestId }
        : {};
    forward(target, { headers, body, ip: '127.0.0.1' }, 15_000).then(
      (answer) => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body),
      () => response.writeHead(503).end(),
    );
  });
}).listen(Number(process.env.PEER_PORT), '127.0.0.1', () =>
  console.log(`peer listening http://127.0.0.1:${process.env.PEER_PORT}/graphql`),
);
