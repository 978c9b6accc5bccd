/** A small HTTP client over fetch that always reads the body, so tests can assert on both. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

export interface ObservedAnswer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

const observers = new Set<(answer: ObservedAnswer) => void>();

/** Tells `observer` of every answer `request` gets until the returned function is called. */
export const observeAnswers = (observer: (answer: ObservedAnswer) => void): (() => void) => {
  observers.add(observer);
  return () => observers.delete(observer);
};

export const request = async (
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: string | Uint8Array; contentType?: string | null; headers?: Record<string, string> } = {},
): Promise<HttpResult> => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined && options.contentType !== null) {
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  // The path as it went out: fetch resolves dot segments (`/tour/.` is sent as `/tour/`).
  const sent = new URL(`${baseUrl}${path}`);
  for (const observer of observers) {
    observer({ method, path: `${sent.pathname}${sent.search}`, status: response.status });
  }
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: tests that care assert on text
  }
  return { status: response.status, headers: response.headers, text, json };
};

export const sendJson = (baseUrl: string, method: string, path: string, value: unknown) =>
  request(baseUrl, method, path, { body: JSON.stringify(value) });
