import { answerFrame, FrameError, FrameKind, FrameReader, requestFrame, signalFrame } from './frames';

describe('frames of the framed channel', () => {
  const headers = { 'x-request-id': 'req_frames1', 'x-gateway-principal': 'signed.principal' };
  const body = JSON.stringify({ query: '{ ping }', variables: { name: 'Zoë 🙂' } });

  it('reads back what was written: a request, an answer, REFUSED and GOAWAY, all in one chunk', () => {
    const stream = Buffer.concat([
      requestFrame(7, headers, body),
      answerFrame(7, 207, { 'content-type': 'application/json' }, '{"data":{"greeting":"grüß dich"}}'),
      signalFrame(FrameKind.Refused, 8),
      signalFrame(FrameKind.GoAway, 0),
    ]);
    expect(new FrameReader(1024).push(stream)).toEqual([
      { kind: FrameKind.Request, id: 7, status: 0, headers, body },
      {
        kind: FrameKind.Answer,
        id: 7,
        status: 207,
        headers: { 'content-type': 'application/json' },
        body: '{"data":{"greeting":"grüß dich"}}',
      },
      { kind: FrameKind.Refused, id: 8, status: 0, headers: {}, body: '' },
      { kind: FrameKind.GoAway, id: 0, status: 0, headers: {}, body: '' },
    ]);
  });

  it('joins frames whatever the chunks: one byte at a time, characters split, two frames across one chunk', () => {
    const first = requestFrame(1, headers, body);
    const second = requestFrame(2, {}, '{"query":"{ a }"}');
    const stream = Buffer.concat([first, second]);
    const reader = new FrameReader(1024);
    const byByte = [...stream].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(byByte.map((frame) => [frame.id, frame.body])).toEqual([
      [1, body],
      [2, '{"query":"{ a }"}'],
    ]);
    const straddling = new FrameReader(1024);
    const cut = first.length + 3; // the second frame's length field is cut in two
    expect(straddling.push(stream.subarray(0, cut)).map((frame) => frame.id)).toEqual([1]);
    expect(straddling.push(stream.subarray(cut)).map((frame) => frame.id)).toEqual([2]);
  });

  it('refuses a frame over the limit from its length alone, before its bytes come', () => {
    const frame = requestFrame(1, headers, 'x'.repeat(2000));
    expect(() => new FrameReader(1024).push(frame.subarray(0, 4))).toThrow(FrameError);
  });

  it('refuses what is not a frame of this protocol: too short, an unknown kind, headers that are not an object of strings', () => {
    const tooShort = Buffer.from([0, 0, 0, 2, 1, 0]);
    expect(() => new FrameReader(1024).push(tooShort)).toThrow(FrameError);
    const unknownKind = requestFrame(1, headers, body);
    unknownKind.writeUInt8(9, 4);
    expect(() => new FrameReader(1024).push(unknownKind)).toThrow(/not of this protocol/);
    const numberHeader = requestFrame(1, { a: 1 } as never, body);
    expect(() => new FrameReader(1024).push(numberHeader)).toThrow(/object of strings/);
    const headersPastEnd = requestFrame(1, headers, body);
    headersPastEnd.writeUInt32BE(10_000, 9);
    expect(() => new FrameReader(100_000).push(headersPastEnd)).toThrow(/past its end/);
  });
});
