import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import {
  StoredTourNameListSchema,
  StoredTourSchema,
  TourPathBodySchema,
  TourSchema,
  TourStepSchema,
  TOUR_LIMITS,
} from '../../protocol/tour-schema.js';
import { PROBLEM_TYPES, problemTypeUri } from './reply.js';
import { SetBoolResultSchema, SimMicrophoneSchema, SimPlayAudioSchema } from '../../robot/sim/sim-schemas.js';

// `check` actions carry rules JSON Schema cannot name; the `metadata` beside each one states them instead.
const CONVERSION: ConversionConfig = { target: 'draft-2020-12', ignoreActions: ['check'] };
const schemaOf = (schema: v.GenericSchema) => {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, CONVERSION);
  return rest;
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
// Every operation: a bug answers 500; while the service stops, requests get 503 (with connection: close).
const ALWAYS = {
  '500': problem('Internal error (a bug): the log line carries the request id'),
  '503': problem('The service is stopping (`shutting-down`); the connection is closed'),
};
const ROS_FAILURES = {
  '502': problem('The ROS service failed without a known outcome (outcome ERROR, or an unknown one)'),
  '503': problem(
    'The ROS service is not available (`ros-unavailable`, with Retry-After), or the service is stopping',
  ),
  '504': problem('The ROS service did not answer in time'),
};
/**
 * The tour service's outcome decides the status, whichever service answered it: these are what its
 * outcome codes map to. Operations override the descriptions where the outcome is the expected one.
 */
const ROS_OUTCOMES = {
  '404': problem('The tour service answered outcome NOT_FOUND'),
  '409': problem('The tour service answered outcome ALREADY_EXISTS'),
  '422': problem('The tour service answered outcome INVALID'),
};
const BODY_FAILURES = {
  '400': problem('Malformed JSON'),
  '413': problem('Body over the size limit'),
  '415': problem('Content type is not application/json'),
  '422': problem(
    'The body fails the schema (`errors` names each field), or the tour service found it invalid',
  ),
};
// Only with access control on (--auth_token, --allowed_origins); the document does not depend on them.
const ACCESS_FAILURES = {
  '401': problem('Token missing or wrong (only when the service runs with --auth_token)'),
  '403': problem('Browser origin not allowed (only when the service runs with --allowed_origins)'),
};
const BEARER = [{ bearer: [] }];
/** An operation behind the access policy: the bearer requirement and the refusals it can cause. */
const protectedOperation = <T extends { responses: Record<string, unknown> }>(operation: T) => ({
  ...operation,
  security: BEARER,
  responses: { ...ALWAYS, ...operation.responses, ...ACCESS_FAILURES },
});
/** An operation open whatever the access policy (a foreign browser origin still gets 403). */
const openOperation = <T extends { responses: Record<string, unknown> }>(operation: T) => ({
  ...operation,
  security: [],
  responses: {
    ...ALWAYS,
    ...operation.responses,
    '403': problem('Browser origin not allowed (only when the service runs with --allowed_origins)'),
  },
});
const PATH_NAME_FAILURE = {
  '400': problem(
    'The path cannot name a tour: not valid percent-encoding, a NUL character, or over 4096 bytes',
  ),
};
const tourNameParameter = {
  name: 'tour_name',
  in: 'path',
  required: true,
  description:
    'Percent-encoded tour name ("/" as %2F). Tours are stored by ROS nodes, which decide which names exist: ' +
    `names created through this API follow the Tour schema (1–${TOUR_LIMITS.nameMaxChars} characters, no ` +
    'control characters), but any name the tour service holds can be read, updated and deleted. Only a ' +
    'path that cannot be a name (invalid percent-encoding, a NUL character, over 4096 bytes) gets 400.',
  schema: { type: 'string' },
};
const success = (description: string) => ({ description, content: json(ref('Success')) });

export const buildOpenApiDocument = (options: { includeSim: boolean; version: string }): object => {
  const paths: Record<string, unknown> = {
    '/tour': {
      get: protectedOperation({
        summary: 'List tour names',
        description: 'Backed by the ROS service /tour_list.',
        responses: {
          '200': {
            description: 'Tour names, as the tour service holds them',
            content: json(ref('TourNames')),
          },
          ...ROS_OUTCOMES,
          ...ROS_FAILURES,
        },
      }),
      post: protectedOperation({
        summary: 'Create a tour',
        description: 'Backed by the ROS service /tour_create.',
        requestBody: { required: true, content: json(ref('Tour')) },
        responses: {
          '201': success('Created'),
          ...ROS_OUTCOMES,
          '409': problem('A tour with this name exists'),
          ...BODY_FAILURES,
          ...ROS_FAILURES,
        },
      }),
      put: protectedOperation({
        summary: 'Update the tour named in the body',
        description: 'Backed by the ROS service /tour_update.',
        requestBody: { required: true, content: json(ref('Tour')) },
        responses: {
          '200': success('Updated'),
          ...ROS_OUTCOMES,
          '404': problem('No tour with this name'),
          ...BODY_FAILURES,
          ...ROS_FAILURES,
        },
      }),
    },
    '/tour/{tour_name}': {
      parameters: [tourNameParameter],
      get: protectedOperation({
        summary: 'Get a tour',
        description: 'Backed by the ROS service /tour_get.',
        responses: {
          '200': { description: 'The tour, as the tour service holds it', content: json(ref('StoredTour')) },
          ...PATH_NAME_FAILURE,
          ...ROS_OUTCOMES,
          '404': problem('No tour with this name'),
          ...ROS_FAILURES,
        },
      }),
      put: protectedOperation({
        summary: 'Update the tour named in the path',
        description:
          'Backed by the ROS service /tour_update. The path names the tour; the body may omit tour_name, and a body naming another tour gets 422.',
        requestBody: { required: true, content: json(ref('TourUpdate')) },
        responses: {
          '200': success('Updated'),
          ...ROS_OUTCOMES,
          '404': problem('No tour with this name'),
          ...BODY_FAILURES,
          '400': problem('Malformed JSON, or a path that cannot name a tour (see the parameter)'),
          ...ROS_FAILURES,
        },
      }),
      delete: protectedOperation({
        summary: 'Delete a tour',
        description: 'Backed by the ROS service /tour_delete.',
        responses: {
          '200': success('Deleted'),
          ...PATH_NAME_FAILURE,
          ...ROS_OUTCOMES,
          '404': problem('No tour with this name'),
          ...ROS_FAILURES,
        },
      }),
    },
    '/health': {
      get: openOperation({
        summary: 'Liveness: the process answers',
        responses: { '200': { description: 'Alive' } },
      }),
    },
    '/ready': {
      get: openOperation({
        summary: 'Readiness: the ROS backend is connected; says which backend',
        responses: {
          '200': { description: 'Ready', content: json(ref('Readiness')) },
          '503': problem(
            'Not ready (`not-ready`; `detail` says what is awaited), or the service is stopping',
          ),
        },
      }),
    },
    '/metrics': {
      get: protectedOperation({
        summary: 'Prometheus metrics (text exposition format)',
        responses: {
          '200': { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      }),
    },
    '/openapi.json': {
      get: openOperation({ summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1' } } }),
    },
  };
  if (options.includeSim) {
    paths['/sim/play_audio'] = {
      post: protectedOperation({
        summary: 'SIMULATION ONLY: publish a message on the simulated /play_audio topic',
        requestBody: { required: true, content: json(schemaOf(SimPlayAudioSchema)) },
        responses: { '200': success('Published'), ...BODY_FAILURES },
      }),
    };
    paths['/sim/microphone'] = {
      post: protectedOperation({
        summary: 'SIMULATION ONLY: call our /microphone/set_enabled service as a ROS client would',
        requestBody: { required: true, content: json(schemaOf(SimMicrophoneSchema)) },
        responses: {
          '200': { description: 'The service answer', content: json(schemaOf(SetBoolResultSchema)) },
          ...BODY_FAILURES,
        },
      }),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tour-bridge',
      version: options.version,
      description:
        'Tour management for the tour-guide robot. Every call is backed by a ROS 2 service; the WebSocket protocol of /ws is described in docs/protocol.md. ' +
        'A method a path does not list is answered 405 with Allow (`MethodNotAllowed`); OPTIONS is answered on every path (204, a CORS preflight).',
    },
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Enforced only when the service runs with --auth_token: then required on /tour, /sim and /metrics (401 without it). Without a token these operations are open. /health, /ready and this document are always open.',
        },
      },
      responses: {
        MethodNotAllowed: problem('The path does not take this method; `Allow` lists those it takes'),
        Preflight: { description: 'CORS preflight (OPTIONS): `Allow`, and CORS headers for allowed origins' },
      },
      schemas: {
        Tour: schemaOf(TourSchema),
        TourUpdate: schemaOf(TourPathBodySchema),
        TourStep: schemaOf(TourStepSchema),
        StoredTour: schemaOf(StoredTourSchema),
        TourNames: schemaOf(StoredTourNameListSchema),
        Success: {
          type: 'object',
          required: ['success'],
          properties: { success: { const: true } },
        },
        Readiness: {
          type: 'object',
          required: ['ready', 'backend', 'detail'],
          properties: {
            ready: { type: 'boolean' },
            backend: { enum: ['ros', 'sim'] },
            detail: { type: 'string' },
          },
        },
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
            },
          },
        },
      },
    },
  };
};
