import { toJsonSchema, type ConversionConfig } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { TourNameListSchema, TourSchema, TourStepSchema, TOUR_LIMITS } from '../tours/tour-schema.js';
import { PROBLEM_TYPES, problemTypeUri } from './http-reply.js';
import { SetBoolResultSchema, SimMicrophoneSchema, SimPlayAudioSchema } from './routes/sim-schemas.js';

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
const ROS_FAILURES = {
  '502': problem('The ROS service failed without a known outcome'),
  '503': problem('The ROS service is not available'),
  '504': problem('The ROS service did not answer in time'),
};
const BODY_FAILURES = {
  '400': problem('Malformed JSON'),
  '413': problem('Body over the size limit'),
  '415': problem('Content type is not application/json'),
  '422': problem('The body fails the schema; `errors` names each field'),
};
const tourNameParameter = {
  name: 'tour_name',
  in: 'path',
  required: true,
  description: `Percent-encoded tour name (1–${TOUR_LIMITS.nameMaxChars} characters, no control characters; "/" as %2F)`,
  schema: { type: 'string' },
};
const success = (description: string) => ({ description, content: json(ref('Success')) });

export const buildOpenApiDocument = (options: { includeSim: boolean; version: string }): object => {
  const paths: Record<string, unknown> = {
    '/tour': {
      get: {
        summary: 'List tour names',
        description: 'Backed by the ROS service /tour_list.',
        responses: { '200': { description: 'Tour names', content: json(ref('TourNames')) }, ...ROS_FAILURES },
      },
      post: {
        summary: 'Create a tour',
        description: 'Backed by the ROS service /tour_create.',
        requestBody: { required: true, content: json(ref('Tour')) },
        responses: {
          '201': success('Created'),
          '409': problem('A tour with this name exists'),
          ...BODY_FAILURES,
          ...ROS_FAILURES,
        },
      },
      put: {
        summary: 'Update the tour named in the body',
        description: 'Backed by the ROS service /tour_update.',
        requestBody: { required: true, content: json(ref('Tour')) },
        responses: {
          '200': success('Updated'),
          '404': problem('No tour with this name'),
          ...BODY_FAILURES,
          ...ROS_FAILURES,
        },
      },
    },
    '/tour/{tour_name}': {
      parameters: [tourNameParameter],
      get: {
        summary: 'Get a tour',
        description: 'Backed by the ROS service /tour_get.',
        responses: {
          '200': { description: 'The tour', content: json(ref('Tour')) },
          '400': problem('Invalid tour name'),
          '404': problem('No tour with this name'),
          ...ROS_FAILURES,
        },
      },
      put: {
        summary: 'Update the tour named in the path',
        description:
          'Backed by the ROS service /tour_update. The path names the tour; the body may omit tour_name, and a body naming another tour gets 422.',
        requestBody: { required: true, content: json(ref('Tour')) },
        responses: {
          '200': success('Updated'),
          '404': problem('No tour with this name'),
          ...BODY_FAILURES,
          ...ROS_FAILURES,
        },
      },
      delete: {
        summary: 'Delete a tour',
        description: 'Backed by the ROS service /tour_delete.',
        responses: {
          '200': success('Deleted'),
          '400': problem('Invalid tour name'),
          '404': problem('No tour with this name'),
          ...ROS_FAILURES,
        },
      },
    },
    '/health': {
      get: { summary: 'Liveness: the process answers', responses: { '200': { description: 'Alive' } } },
    },
    '/ready': {
      get: {
        summary: 'Readiness: the ROS backend is connected; says which backend',
        responses: {
          '200': { description: 'Ready', content: json(ref('Readiness')) },
          '503': problem('Not ready; `detail` says what is awaited'),
        },
      },
    },
    '/metrics': {
      get: {
        summary: 'Prometheus metrics (text exposition format)',
        responses: {
          '200': { description: 'Metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': problem('Token required (only when the service runs with one)'),
        },
      },
    },
    '/openapi.json': {
      get: { summary: 'This document', responses: { '200': { description: 'OpenAPI 3.1' } } },
    },
  };
  if (options.includeSim) {
    paths['/sim/play_audio'] = {
      post: {
        summary: 'SIMULATION ONLY: publish a message on the simulated /play_audio topic',
        requestBody: { required: true, content: json(schemaOf(SimPlayAudioSchema)) },
        responses: { '200': success('Published'), ...BODY_FAILURES },
      },
    };
    paths['/sim/microphone'] = {
      post: {
        summary: 'SIMULATION ONLY: call our /microphone/set_enabled service as a ROS client would',
        requestBody: { required: true, content: json(schemaOf(SimMicrophoneSchema)) },
        responses: {
          '200': { description: 'The service answer', content: json(schemaOf(SetBoolResultSchema)) },
          ...BODY_FAILURES,
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tour-bridge',
      version: options.version,
      description:
        'Tour management for the tour-guide robot. Every call is backed by a ROS 2 service; the WebSocket protocol of /ws is described in docs/protocol.md.',
    },
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Only when the service runs with --auth_token: required on /tour, /sim and /metrics (401 without it). /health, /ready and this document stay open.',
        },
      },
      schemas: {
        Tour: schemaOf(TourSchema),
        TourStep: schemaOf(TourStepSchema),
        TourNames: schemaOf(TourNameListSchema),
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
