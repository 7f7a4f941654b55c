// The OpenAPI 3 description of the leads API (served at /api/v1/openapi.json, shown at /api/v1/docs).
import { API_LIMIT, DUPLICATE_MESSAGE, KEY_FAILURE_LIMIT, MAX_BATCH } from './leads-api.server.ts';

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const error = { type: 'object', properties: { error: str('What went wrong'), errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } } }, required: ['error'] };

export function openApiDocument(serverUrl = '/') {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Leads API',
      version: '1.0.0',
      description: [
        'Send leads to the broker and follow them. Authenticate every call with your API key from the API Key page',
        '(`Authorization: Bearer <key>` or `X-API-Key: <key>`); generating a new key revokes the old one at once.',
        'Cookies are never accepted here. The broker\'s landing pages use the leads webhook key of the site settings the same way.',
        `Each key may make ${API_LIMIT.max} calls per ${API_LIMIT.windowSeconds} seconds; beyond that the answer is 429 with Retry-After (seconds).`,
        `An address that sends ${KEY_FAILURE_LIMIT.max} wrong keys within ${KEY_FAILURE_LIMIT.windowSeconds / 60} minutes is answered 429 until the window ends.`,
        'A lead is a duplicate when a live lead has the same email (trimmed, lower-cased) or the same phone in E.164',
        '(read with the lead\'s country as the default region: "+44 7700 900123", "07700 900123" with GB and "0044 7700 900123" are one phone).',
        `A duplicate is answered the same whoever holds the contact: "${DUPLICATE_MESSAGE}", with no id.`,
        'Retries are safe: send an `Idempotency-Key` header (the same key and body replays the first answer; the same key with another body is 409),',
        'or a `clientId` per lead (the same clientId and lead replays its result; with another lead the item is a conflict).',
      ].join(' '),
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }, { apiKey: [] }],
    paths: {
      '/api/v1/leads': {
        post: {
          summary: 'Send one lead or a batch',
          description: `One lead as an object (answered 201 created or 200 duplicate), or a batch of up to ${MAX_BATCH} as { "leads": [...] } or an array (answered 200 with a result per lead: created, duplicate, rejected with its field errors, or conflict; the valid ones are kept even when others are rejected; 422 when every lead is rejected). Leads sent with an affiliate key are credited to that affiliate and appear among the broker's live leads.`,
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 200 }, description: 'A client id of this request: retries with the same body replay the first answer.' }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/Lead' }, { $ref: '#/components/schemas/LeadBatch' }, { type: 'array', maxItems: MAX_BATCH, items: { $ref: '#/components/schemas/Lead' } }] },
              examples: {
                one: { value: { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com', phone: '07700 900123', country: 'GB', city: 'London', funnelLink: 'https://example.com/landing', reference: 'camp-42', leadSourceId: 'src-7', clientId: 'my-id-1' } },
                batch: { value: { leads: [{ firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com', phone: '+44 7700 900123', country: 'GB' }] } },
              } } },
          },
          responses: {
            201: { description: 'The lead was created', content: { 'application/json': { schema: { $ref: '#/components/schemas/Created' } } } },
            200: { description: 'One lead: a duplicate. A batch: the result of every lead', content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/Duplicate' }, { $ref: '#/components/schemas/BatchResult' }] } } } },
            400: { description: 'The body is not JSON', content: { 'application/json': { schema: error } } },
            401: { description: 'No valid API key', content: { 'application/json': { schema: error } } },
            409: { description: 'The Idempotency-Key (or one lead\'s clientId) was used with another body', content: { 'application/json': { schema: error } } },
            413: { description: 'The body is larger than 1 MB', content: { 'application/json': { schema: error } } },
            415: { description: 'The body is not application/json', content: { 'application/json': { schema: error } } },
            422: { description: 'Invalid fields: each with its path (e.g. "email", or "leads.3.phone" in a batch) and message', content: { 'application/json': { schema: error } } },
            429: { description: 'Too many calls with this key, or too many wrong keys from this address; retry after the Retry-After header\'s seconds', headers: { 'Retry-After': { schema: { type: 'integer' } } }, content: { 'application/json': { schema: error } } },
          },
        },
        get: {
          summary: 'Your leads, newest first',
          description: 'The leads sent with your key (affiliate keys only), with their sales status, whether they signed up and the time of their first deposit (FTD).',
          parameters: [
            { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10000, default: 1 } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
          ],
          responses: {
            200: { description: 'A page of leads', content: { 'application/json': { schema: { $ref: '#/components/schemas/LeadPage' } } } },
            401: { description: 'No valid API key', content: { 'application/json': { schema: error } } },
            403: { description: 'The broker\'s webhook key cannot list leads', content: { 'application/json': { schema: error } } },
            422: { description: 'Invalid page or limit', content: { 'application/json': { schema: error } } },
            429: { description: 'Too many calls with this key', content: { 'application/json': { schema: error } } },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <your API key>' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
      schemas: {
        Lead: {
          type: 'object', additionalProperties: false,
          required: ['firstName', 'lastName', 'email', 'phone', 'country'],
          properties: {
            firstName: str('First name', { minLength: 1, maxLength: 100 }),
            lastName: str('Last name', { minLength: 1, maxLength: 100 }),
            email: str('Email address', { format: 'email', maxLength: 254 }),
            phone: str('Phone number, international (+44…, 0044…) or national in the lead\'s country', { maxLength: 40 }),
            country: str('ISO 3166 code (GB, GBR) or the country\'s name', { maxLength: 100 }),
            city: str('City', { maxLength: 100 }),
            funnelLink: str('The landing page the lead came from (http or https URL)', { format: 'uri', maxLength: 500 }),
            reference: str('Your affiliate reference', { maxLength: 200 }),
            leadSourceId: str('Your lead source id', { maxLength: 200 }),
            clientId: str('Your id of this lead, for safe retries', { maxLength: 100 }),
          },
        },
        LeadBatch: { type: 'object', required: ['leads'], properties: { leads: { type: 'array', minItems: 1, maxItems: MAX_BATCH, items: { $ref: '#/components/schemas/Lead' } } } },
        FieldError: { type: 'object', required: ['path', 'message'], properties: { path: str('The field, e.g. email or leads.2.phone'), message: str('Why it was refused') } },
        Created: { type: 'object', required: ['status', 'id'], properties: { status: { type: 'string', enum: ['created'] }, id: { type: 'integer' }, clientId: { type: 'string' } } },
        Duplicate: {
          type: 'object', required: ['status', 'reason', 'message'],
          properties: { status: { type: 'string', enum: ['duplicate'] }, reason: { type: 'string', enum: ['email', 'phone'], description: 'same email, or same phone' }, message: { type: 'string', enum: [DUPLICATE_MESSAGE] }, clientId: { type: 'string' } },
        },
        BatchItem: {
          type: 'object', required: ['index', 'status'],
          properties: {
            index: { type: 'integer', description: 'Position in the batch, from 0' }, clientId: { type: 'string' },
            status: { type: 'string', enum: ['created', 'duplicate', 'rejected', 'conflict'] },
            id: { type: 'integer' }, reason: { type: 'string', enum: ['email', 'phone'] },
            errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } }, message: { type: 'string' },
          },
        },
        BatchResult: {
          type: 'object', required: ['created', 'duplicates', 'rejected', 'conflicts', 'results'],
          properties: { created: { type: 'integer' }, duplicates: { type: 'integer' }, rejected: { type: 'integer' }, conflicts: { type: 'integer' }, results: { type: 'array', items: { $ref: '#/components/schemas/BatchItem' } } },
        },
        LeadPage: {
          type: 'object', required: ['data', 'meta'],
          properties: {
            data: { type: 'array', items: { type: 'object', properties: {
              id: { type: 'integer' }, firstName: { type: 'string' }, lastName: { type: 'string' }, email: { type: 'string' }, phone: { type: 'string' },
              country: { type: 'string' }, city: { type: 'string' }, funnelLink: { type: 'string', nullable: true }, reference: { type: 'string', nullable: true },
              leadSourceId: { type: 'string', nullable: true }, status: str('Sales status (New, …)'), registered: { type: 'boolean', description: 'The lead signed up (is a customer)' },
              createdAt: { type: 'string', format: 'date-time' }, ftdAt: { type: 'string', format: 'date-time', nullable: true, description: 'First approved real deposit' },
              depositedAt: { type: 'string', format: 'date-time', nullable: true, description: 'Latest approved real deposit' },
            } } },
            meta: { type: 'object', properties: { page: { type: 'integer' }, limit: { type: 'integer' }, total: { type: 'integer' } } },
          },
        },
      },
    },
  };
}
