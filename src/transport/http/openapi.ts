import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { jsonTextReply, MAX_LISTED_ERRORS, PROBLEM_TYPES, problemTypeUri } from './reply.js';
import { pathTemplate, patternParams, type AnyRoute, type ResponseDoc, type Route } from './route.js';

/**
 * The OpenAPI 3.1 document of the running service, derived from the route table: every route with `docs`
 * is an operation; its access, as the service was started, gives its security and 401/403 answers (none
 * without a token or an origin list), its body schema the request body and the 400/413/415/422
 * answers, and the router's own answers (500, 503 while stopping, 405, OPTIONS) are added to all.
 */

// `check` actions carry rules JSON Schema cannot name; the `metadata` beside each one states them instead.
// A pipe of several schemas (the tour's steps: their number first, then each step) is documented by its
// output, its last schema.
const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  ignoreActions: ['check'],
  typeMode: 'output',
};
const jsonSchemaOf = (schema: v.GenericSchema): Record<string, unknown> => {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, CONVERSION);
  return rest;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

// Every operation: a bug answers 500; while the service stops, requests get 503 (with connection: close);
// a request whose length is ambiguous gets 400 or 501, one whose head is too large 431, and the
// connection is closed (installed-route.ts).
const ALWAYS = {
  '400': problem('Ambiguous request framing (Content-Length headers that differ); the connection is closed'),
  '431': problem('The request line and headers take more than 16 KiB; the connection is closed'),
  '500': problem('Internal error (a bug): the log line carries the request id'),
  '501': problem('A Transfer-Encoding other than chunked; the connection is closed'),
  '503': problem('The service is stopping (`shutting-down`); the connection is closed'),
};
const BODY_FAILURES = {
  '400': problem('Malformed JSON, or ambiguous request framing (the connection is then closed)'),
  '413': problem('Body over the size limit'),
  '415': problem('Content type is not application/json'),
  '422': problem('The body fails the schema (`errors` names each field)'),
};
const FORBIDDEN_ORIGIN = problem('Browser origin not in --allowed_origins');
const UNAUTHORIZED = problem('Token missing or wrong (--auth_token)');
const BEARER = [{ bearer: [] }];

const headersOf = (headers: Readonly<Record<string, string>> | undefined) =>
  headers === undefined
    ? {}
    : {
        headers: Object.fromEntries(
          Object.entries(headers).map(([name, description]) => [
            name,
            { description, schema: { type: 'string' } },
          ]),
        ),
      };

/** A response of the route's own: problem details for errors, the given schema or content otherwise. */
const responseOf = (status: number, doc: string | ResponseDoc) => {
  const { description, schema, contentType, headers } = typeof doc === 'string' ? { description: doc } : doc;
  if (status >= 400) return { ...problem(description), ...headersOf(headers) };
  if (schema === undefined) {
    return contentType === undefined
      ? { description, ...headersOf(headers) }
      : { description, ...headersOf(headers), content: { [contentType]: { schema: { type: 'string' } } } };
  }
  return {
    description,
    ...headersOf(headers),
    content: {
      [contentType ?? 'application/json']: { schema: typeof schema === 'string' ? ref(schema) : schema },
    },
  };
};

/** The request headers a route documents, as header parameters (never required: each is optional). */
const headerParameters = (route: AnyRoute) =>
  Object.entries(route.docs?.headers ?? {}).map(([name, description]) => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  }));

const operationOf = (route: AnyRoute, access: DocumentedAccess) => {
  const docs = route.docs;
  if (docs === undefined) return undefined;
  const responses: Record<string, unknown> = { ...ALWAYS };
  if (route.body !== undefined) Object.assign(responses, BODY_FAILURES);
  if (route.body !== undefined && route.maxBodyBytes !== undefined) {
    responses['413'] = problem(`Body over this route's own limit of ${route.maxBodyBytes} bytes`);
  }
  for (const [status, doc] of Object.entries(docs.responses)) {
    responses[status] = responseOf(Number(status), doc);
  }
  const guarded = route.access !== 'public' && access.token;
  if (access.origins) responses['403'] = FORBIDDEN_ORIGIN;
  if (guarded) responses['401'] = UNAUTHORIZED;
  const parameters = headerParameters(route);
  return {
    summary: docs.summary,
    ...(docs.description === undefined ? {} : { description: docs.description }),
    ...(parameters.length === 0 ? {} : { parameters }),
    security: guarded ? BEARER : [],
    ...(route.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: docs.bodyName === undefined ? jsonSchemaOf(route.body) : ref(docs.bodyName),
              },
            },
          },
        }),
    responses,
  };
};

/** What the service checks, as it was started: a token (`--auth_token`), browser origins (`--allowed_origins`). */
export interface DocumentedAccess {
  readonly token: boolean;
  readonly origins: boolean;
}

export interface OpenApiInfo {
  readonly version: string;
  readonly access: DocumentedAccess;
  /** Named schemas the routes refer to (`bodyName`, a response's schema name). */
  readonly schemas: Readonly<Record<string, v.GenericSchema | Record<string, unknown>>>;
}

const isValibot = (schema: unknown): schema is v.GenericSchema =>
  typeof schema === 'object' &&
  schema !== null &&
  'kind' in schema &&
  'type' in schema &&
  '~standard' in schema;

export const buildOpenApiDocument = (routes: readonly AnyRoute[], info: OpenApiInfo): object => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operation = operationOf(route, info.access);
    if (operation === undefined) continue;
    const template = pathTemplate(route.pattern);
    const item = (paths[template] ??= {});
    const params = patternParams(route.pattern);
    if (params.length > 0 && item['parameters'] === undefined) {
      // Each parameter's schema is the one the router validates it with (after percent-decoding).
      const declared = route.params?.schema as v.GenericSchema | undefined;
      const properties = (declared === undefined ? {} : jsonSchemaOf(declared)['properties']) as
        | Record<string, unknown>
        | undefined;
      item['parameters'] = params.map((name) => ({
        name,
        in: 'path',
        required: true,
        ...(route.docs?.params?.[name] === undefined ? {} : { description: route.docs.params[name] }),
        schema: properties?.[name] ?? { type: 'string' },
      }));
    }
    item[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tour-bridge',
      version: info.version,
      description:
        'Tour management for the tour-guide robot. Every call is backed by a ROS 2 service; the WebSocket protocol of /ws is described in docs/protocol.md. ' +
        'HEAD is answered wherever GET is (GET’s status and headers, no body). A method a path does not list is answered 405 with Allow (`MethodNotAllowed`); OPTIONS is answered on every path (204, a CORS preflight).',
    },
    paths,
    components: {
      ...(info.access.token
        ? {
            securitySchemes: {
              bearer: {
                type: 'http',
                scheme: 'bearer',
                description:
                  'The service runs with --auth_token: required on every operation that lists it (401).',
              },
            },
          }
        : {}),
      responses: {
        MethodNotAllowed: problem('The path does not take this method; `Allow` lists those it takes'),
        Preflight: { description: 'CORS preflight (OPTIONS): `Allow`, and CORS headers for allowed origins' },
      },
      schemas: {
        ...Object.fromEntries(
          Object.entries(info.schemas).map(([name, schema]) => [
            name,
            isValibot(schema) ? jsonSchemaOf(schema) : schema,
          ]),
        ),
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details',
          required: ['type', 'title', 'status', 'detail', 'success'],
          properties: {
            type: {
              enum: Object.keys(PROBLEM_TYPES).map((name) =>
                problemTypeUri(name as keyof typeof PROBLEM_TYPES),
              ),
            },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            success: { const: false },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
              description: `The schema failures, at most ${MAX_LISTED_ERRORS} (\`errors_omitted\` counts the rest)`,
            },
            errors_omitted: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
  };
};

/**
 * `GET /openapi.json`, an ordinary public route: the document of `routes` and of itself, serialised once
 * when first asked for.
 */
export const openApiRoute = (routes: readonly AnyRoute[], info: OpenApiInfo): Route => {
  let body: string | undefined;
  const route: Route = {
    method: 'GET',
    pattern: '/openapi.json',
    access: 'public',
    docs: { summary: 'This document', responses: { 200: 'OpenAPI 3.1' } },
    handle: () => {
      body ??= JSON.stringify(buildOpenApiDocument([...routes, route], info));
      return jsonTextReply(200, body);
    },
  };
  return route;
};
