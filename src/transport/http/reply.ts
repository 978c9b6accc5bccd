/** What a route answers; the transport writes it. */
export interface HttpReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

export const JSON_CONTENT_TYPE = 'application/json';
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': JSON_CONTENT_TYPE });

export const jsonReply = (status: number, value: unknown, headers?: Record<string, string>): HttpReply => ({
  status,
  headers: headers === undefined ? JSON_HEADERS : { 'content-type': JSON_CONTENT_TYPE, ...headers },
  body: JSON.stringify(value),
});

/** A JSON answer whose body is already serialised. */
export const jsonTextReply = (status: number, json: string): HttpReply => ({
  status,
  headers: JSON_HEADERS,
  body: json,
});

/** Problem types, each documented in the OpenAPI document. */
export const PROBLEM_TYPES = {
  'bad-request': { status: 400, title: 'Bad request' },
  'malformed-json': { status: 400, title: 'Malformed JSON body' },
  'invalid-tour-name': { status: 400, title: 'Invalid tour name' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'forbidden-origin': { status: 403, title: 'Origin not allowed' },
  'not-found': { status: 404, title: 'Not found' },
  'tour-not-found': { status: 404, title: 'Tour not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'tour-exists': { status: 409, title: 'Tour already exists' },
  'tour-changed': { status: 412, title: 'Tour changed since it was read' },
  'upgrade-required': { status: 426, title: 'Upgrade required' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'validation-failed': { status: 422, title: 'Validation failed' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'request-header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'not-implemented': { status: 501, title: 'Not implemented' },
  'ros-call-failed': { status: 502, title: 'ROS service failed' },
  'tour-store-full': { status: 507, title: 'Tour store full' },
  'ros-unavailable': { status: 503, title: 'ROS service unavailable' },
  'not-ready': { status: 503, title: 'Not ready' },
  'shutting-down': { status: 503, title: 'Shutting down' },
  'tour-busy': { status: 503, title: 'Tour busy' },
  'ros-timeout': { status: 504, title: 'ROS service timed out' },
} as const satisfies Record<string, { status: number; title: string }>;
export type ProblemType = keyof typeof PROBLEM_TYPES;

export const problemTypeUri = (type: ProblemType): string => `urn:tour-bridge:problem:${type}`;

/** RFC 9457 problem details, with `success: false` so clients of the spec's success boolean keep working. */
export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly success: false;
  readonly [extension: string]: unknown;
}

/** Most schema issues a 422 lists: a body of many bad elements gets a bounded answer, the rest counted. */
export const MAX_LISTED_ERRORS = 20;

export const problemReply = (
  type: ProblemType,
  detail: string,
  options: { headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
): HttpReply => {
  const { status, title } = PROBLEM_TYPES[type];
  const body: ProblemBody = {
    ...options.extensions,
    type: problemTypeUri(type),
    title,
    status,
    detail,
    success: false,
  };
  return {
    status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...options.headers },
    body: JSON.stringify(body),
  };
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  426: 'Upgrade Required',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  507: 'Insufficient Storage',
};

const STATUS_LINES = new Map(
  Object.entries(STATUS_TEXT).map(([code, text]) => [Number(code), `${code} ${text}`]),
);

export const statusLine = (status: number): string => STATUS_LINES.get(status) ?? `${status} Unknown`;

/** Adds headers to a reply (CORS); the reply itself is shared and never changed. */
export const withHeaders = (reply: HttpReply, headers: Readonly<Record<string, string>>): HttpReply =>
  Object.keys(headers).length === 0 ? reply : { ...reply, headers: { ...reply.headers, ...headers } };
