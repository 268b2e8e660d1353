import type { Writable } from 'node:stream';

/**
 * The frames of kernel's framed channel (framed-transport.ts, framed-serving.ts): many GraphQL
 * requests and answers interleaved on one upgraded connection between the platform's processes.
 *
 * Every frame: u32 length of what follows, u8 kind, u32 request number, then by kind
 * - REQUEST:  u32 header bytes, the headers as JSON, the GraphQL body as JSON (the rest);
 * - ANSWER:   u16 status, u32 header bytes, the headers as JSON, the body as text (the rest);
 * - REFUSED:  nothing: the request was not run (the server is stopping): send it elsewhere;
 * - GOAWAY:   (request number 0) the server takes no new requests on this connection; those in
 *   flight are answered, then it closes.
 * Numbers are big-endian; text is UTF-8.
 */

/** The Upgrade token a client asks for and a server grants (HTTP/1.1 101 Switching Protocols). */
export const FRAMES_PROTOCOL = 'gateway-frames.v1';

export const FrameKind = { Request: 1, Answer: 2, Refused: 3, GoAway: 4 } as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

export interface Frame {
  kind: FrameKind;
  id: number;
  /** REQUEST and ANSWER: the HTTP status of an answer (0 for a request). */
  status: number;
  headers: Record<string, string>;
  /** REQUEST: the JSON body; ANSWER: the answer's body. */
  body: string;
}

const PREFIX = 4 + 1 + 4;

export function requestFrame(id: number, headers: Record<string, string>, body: string): Buffer {
  const head = JSON.stringify(headers);
  const headBytes = Buffer.byteLength(head);
  const bodyBytes = Buffer.byteLength(body);
  const frame = Buffer.allocUnsafe(PREFIX + 4 + headBytes + bodyBytes);
  frame.writeUInt32BE(frame.length - 4, 0);
  frame.writeUInt8(FrameKind.Request, 4);
  frame.writeUInt32BE(id, 5);
  frame.writeUInt32BE(headBytes, 9);
  frame.write(head, 13, 'utf8');
  frame.write(body, 13 + headBytes, 'utf8');
  return frame;
}

export function answerFrame(id: number, status: number, headers: Record<string, string>, body: string): Buffer {
  const head = JSON.stringify(headers);
  const headBytes = Buffer.byteLength(head);
  const bodyBytes = Buffer.byteLength(body);
  const frame = Buffer.allocUnsafe(PREFIX + 2 + 4 + headBytes + bodyBytes);
  frame.writeUInt32BE(frame.length - 4, 0);
  frame.writeUInt8(FrameKind.Answer, 4);
  frame.writeUInt32BE(id, 5);
  frame.writeUInt16BE(status, 9);
  frame.writeUInt32BE(headBytes, 11);
  frame.write(head, 15, 'utf8');
  frame.write(body, 15 + headBytes, 'utf8');
  return frame;
}

/** REFUSED (id) or GOAWAY (id 0): no headers, no body. */
export function signalFrame(kind: typeof FrameKind.Refused | typeof FrameKind.GoAway, id: number): Buffer {
  const frame = Buffer.allocUnsafe(PREFIX);
  frame.writeUInt32BE(PREFIX - 4, 0);
  frame.writeUInt8(kind, 4);
  frame.writeUInt32BE(id, 5);
  return frame;
}

/**
 * Writes frames to `socket` so that those written in one turn of the event loop leave in one write
 * (one system call for many calls or answers under load).
 */
export function batchedWriter(socket: Writable): (frame: Buffer) => void {
  let corked = false;
  return (frame) => {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    socket.write(frame);
  };
}

/** What a peer sent that is not a frame of this protocol: the connection is closed. */
export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameError';
  }
}

/**
 * Cuts a byte stream into frames, whatever the chunks: a frame split over many chunks is joined
 * once, when it is whole. Throws FrameError on a frame longer than `maxFrameBytes` (before reading
 * it) or one that does not parse.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes: number) {}

  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    while (this.buffered >= 4) {
      const length = this.peekLength();
      if (length > this.maxFrameBytes) throw new FrameError(`a frame of ${length} bytes is over ${this.maxFrameBytes}`);
      if (length < PREFIX - 4) throw new FrameError(`a frame of ${length} bytes is too short`);
      if (this.buffered < 4 + length) break;
      frames.push(parse(this.take(4 + length)));
    }
    return frames;
  }

  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readUInt32BE(0);
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.readUInt32BE(0);
  }

  private take(bytes: number): Buffer {
    if (this.chunks[0]!.length < bytes) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    const first = this.chunks[0]!;
    const frame = first.subarray(0, bytes);
    if (first.length === bytes) this.chunks.shift();
    else this.chunks[0] = first.subarray(bytes);
    this.buffered -= bytes;
    return frame;
  }
}

function parse(frame: Buffer): Frame {
  const kind = frame.readUInt8(4) as FrameKind;
  const id = frame.readUInt32BE(5);
  if (kind === FrameKind.Refused || kind === FrameKind.GoAway) return { kind, id, status: 0, headers: {}, body: '' };
  const status = kind === FrameKind.Answer ? frame.readUInt16BE(PREFIX) : 0;
  const headAt = kind === FrameKind.Answer ? PREFIX + 2 : kind === FrameKind.Request ? PREFIX : -1;
  if (headAt < 0 || frame.length < headAt + 4) throw new FrameError(`a frame of kind ${kind} is not of this protocol`);
  const headBytes = frame.readUInt32BE(headAt);
  const bodyAt = headAt + 4 + headBytes;
  if (bodyAt > frame.length) throw new FrameError("a frame's headers run past its end");
  let headers: unknown;
  try {
    headers = JSON.parse(frame.toString('utf8', headAt + 4, bodyAt));
  } catch {
    throw new FrameError("a frame's headers are not JSON");
  }
  if (!isHeaderMap(headers)) throw new FrameError("a frame's headers are not an object of strings");
  return { kind, id, status, headers, body: frame.toString('utf8', bodyAt) };
}

function isHeaderMap(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (typeof (value as Record<string, unknown>)[key] !== 'string') return false;
  return true;
}
