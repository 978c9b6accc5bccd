import { problemReply, type HttpReply } from './reply.js';

/**
 * Pre-body checks of a JSON request, answerable before a byte of the body is read.
 * Only UTF-8 JSON is accepted: JSON is UTF-8 on the wire (RFC 8259), and a declared other charset
 * is a client bug worth a clear 415 rather than a garbled tour name.
 */
export const checkJsonRequestHead = (
  head: { readonly contentType: string; readonly contentLength: string },
  limit: number,
): HttpReply | undefined => {
  // The type nearly every client sends, with no parameters, needs no parsing.
  if (head.contentType !== 'application/json') {
    const refused = mediaTypeProblem(head.contentType);
    if (refused !== undefined) return refused;
  }
  if (head.contentLength !== '') {
    const declared = /^\d{1,15}$/.test(head.contentLength) ? Number(head.contentLength) : Number.NaN;
    if (Number.isNaN(declared)) return problemReply('bad-request', 'content-length is not a number');
    if (declared > limit) return tooLarge(limit);
  }
  return undefined;
};

const mediaTypeProblem = (contentType: string): HttpReply | undefined => {
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType === '') {
    return problemReply(
      'unsupported-media-type',
      'a request body must be sent with content type application/json',
    );
  }
  if (mediaType !== 'application/json') {
    return problemReply(
      'unsupported-media-type',
      `content type ${mediaType} is not supported; send application/json`,
    );
  }
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  if (charset !== undefined && !['charset=utf-8', 'charset="utf-8"'].includes(charset)) {
    return problemReply('unsupported-media-type', `only UTF-8 JSON is accepted, not ${charset}`);
  }
  return undefined;
};

export const tooLarge = (limit: number): HttpReply =>
  problemReply('payload-too-large', `the request body exceeds the limit of ${limit} bytes`);

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type ParsedJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reply: HttpReply };

export const parseJsonBody = (bytes: Uint8Array): ParsedJson => {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reply: problemReply('malformed-json', 'the body is not valid UTF-8') };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : 'unparseable';
    return { ok: false, reply: problemReply('malformed-json', `the body is not valid JSON: ${reason}`) };
  }
};
