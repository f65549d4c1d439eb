/**
 * Every /api/v2 response a test receives, checked against the calling key's own served OpenAPI
 * document: the operation (path and method) must be described when it succeeds, the status must be
 * one of its responses, the media type one of that response's, and the body must validate against
 * its schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses). A drift between what the server sends
 * and what it says it sends fails the test that saw it.
 *
 * Every JSON:API body is also validated against JSON:API's own schema, extended for exactly `links.sync`
 * and `atomic:results` (./jsonapi.ts, contract preamble), whatever the document says.
 *
 * Adopting it is one line in a suite: `app = await checkResponses(await bootApp());` (every
 * `app.http()` request is then checked). Requests outside /api/v2 (admin routes) and asset files are
 * not checked; other non-JSON bodies are checked for status only.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Response, Test } from 'supertest';
import { buildOpenApiDocument } from '../../src/plugins/public-api/server/src/openapi/document';
import type { TestApp } from './app';
import { expectValidJsonApi } from './jsonapi';

export const API_BASE = '/api/v2';
const DOCUMENT_PATH = `${API_BASE}/openapi.json`;

/** A JSON Schema 2020-12 object: open, typing the one keyword tests read. */
type Schema = { properties?: Record<string, Schema>; [keyword: string]: unknown };
type MediaType = { schema?: Schema };
type ResponseObject = { description: string; content?: Record<string, MediaType>; $ref?: string };
type Parameter = { name: string; in: string; schema?: Schema; $ref?: string };
type Operation = { operationId: string; parameters?: Parameter[]; responses: Record<string, ResponseObject> };
type PathItem = { get?: Operation; post?: Operation; put?: Operation; patch?: Operation; delete?: Operation; [member: string]: unknown };
/** A served document, as far as the checker and the tests read it (src/.../openapi/types.ts builds it). */
export type OpenApiDocument = {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter>; responses: Record<string, ResponseObject> };
};

type Served = { etag: string; document: OpenApiDocument };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The error document schema of a key-less caller: what 401s (and routing errors before the key) send. */
const keylessDocument = (): OpenApiDocument =>
  buildOpenApiDocument({
    baseUrl: 'http://127.0.0.1/api/v2',
    grants: { resources: {}, commands: [], origins: [] },
    resources: [],
    locales: [],
    commands: [],
  }) as unknown as OpenApiDocument;

const mediaTypeOf = (contentType: string | undefined): string | undefined => contentType?.split(';')[0]?.trim().toLowerCase();

/** `/events/{record}` matches `/events/jazz-night`; the template with the most literal segments wins. */
export const findPath = (document: OpenApiDocument, relativePath: string): string | null => {
  let segments: string[];
  try {
    segments =
      relativePath === '/'
        ? []
        : relativePath
            .replace(/^\/+|\/+$/g, '')
            .split('/')
            .map(decodeURIComponent);
  } catch {
    return null; // A malformed path is no path of the document.
  }
  let best: { template: string; literals: number } | null = null;
  for (const template of Object.keys(document.paths)) {
    const parts = template === '/' ? [] : template.slice(1).split('/');
    if (parts.length !== segments.length) continue;
    let literals = 0;
    const matches = parts.every((part, index) => {
      if (/^\{[^}]+\}$/.test(part)) return segments[index] !== '';
      literals += 1;
      return part === segments[index];
    });
    if (matches && (!best || literals > best.literals)) best = { template, literals };
  }
  return best?.template ?? null;
};

export class ResponseChecker {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  private readonly served = new Map<string, Served>();
  private readonly inFlight = new Map<string, Promise<Served | null>>();
  private readonly validators = new Map<string, ValidateFunction>();
  private keyless: OpenApiDocument | null = null;
  /** How many responses were checked, by outcome: for suites that want to assert coverage. */
  readonly counts = { checked: 0, described: 0, undescribedErrors: 0, keyless: 0 };

  /** `raw` is the unchecked `app.http` (also what the checker fetches documents with). */
  constructor(readonly raw: () => ReturnType<TestApp['http']>) {
    addFormats(this.ajv);
  }

  /** The key's served document, revalidated with its ETag on every call (grants change at any time). */
  async documentFor(authorization: string | undefined): Promise<OpenApiDocument | null> {
    const cacheKey = authorization ?? '';
    let pending = this.inFlight.get(cacheKey);
    if (!pending) {
      pending = this.fetchDocument(authorization).finally(() => this.inFlight.delete(cacheKey));
      this.inFlight.set(cacheKey, pending);
    }
    return (await pending)?.document ?? null;
  }

  private async fetchDocument(authorization: string | undefined): Promise<Served | null> {
    const cacheKey = authorization ?? '';
    if (!authorization) return null;
    const previous = this.served.get(cacheKey);
    let test = this.raw().get(DOCUMENT_PATH).set('Authorization', authorization).set('Accept', 'application/json');
    if (previous) test = test.set('If-None-Match', previous.etag);
    const res = await test;
    if (res.status === 304 && previous) return previous;
    if (res.status !== 200) {
      this.served.delete(cacheKey);
      return null;
    }
    const served = { etag: String(res.headers.etag), document: JSON.parse(res.text) as OpenApiDocument };
    this.served.set(cacheKey, served);
    return served;
  }

  private validator(documentId: string, document: OpenApiDocument, pointer: string, schema: Schema): ValidateFunction {
    const id = `${documentId} ${pointer}`;
    let validate = this.validators.get(id);
    if (!validate) {
      // The response schema with the document's components beside it, so `#/components/...` resolves.
      validate = this.ajv.compile({ components: document.components, allOf: [schema] });
      this.validators.set(id, validate);
    }
    return validate;
  }

  private resolveResponse(document: OpenApiDocument, response: ResponseObject): ResponseObject {
    if (!response.$ref) return response;
    const name = response.$ref.replace('#/components/responses/', '');
    const resolved = document.components.responses?.[name];
    if (!resolved) throw new Error(`Unresolved response ${response.$ref}`);
    return resolved;
  }

  private validateBody(documentId: string, document: OpenApiDocument, pointer: string, schema: Schema, body: unknown, where: string): void {
    const validate = this.validator(documentId, document, pointer, schema);
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 8)
        .map((error) => `  ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
      throw new Error(
        `${where}: the body does not match the served document:\n${errors.join('\n')}\n${JSON.stringify(body).slice(0, 2000)}`,
      );
    }
  }

  private keylessErrorCheck(res: Response, where: string): void {
    this.keyless ??= keylessDocument();
    if (res.status < 400) throw new Error(`${where}: ${res.status} without a usable key.`);
    const schema = { $ref: '#/components/schemas/ErrorDocument' };
    this.validateBody('keyless', this.keyless, 'error', schema, JSON.parse(res.text), where);
  }

  /** Checks one response; throws with what does not match. */
  async check(method: string, url: string, authorization: string | undefined, res: Response): Promise<void> {
    const parsed = new URL(url, 'http://localhost');
    if (parsed.pathname !== API_BASE && !parsed.pathname.startsWith(`${API_BASE}/`)) return;
    // Asset files are keyless and binary (contract section 11); the key's document does not describe them.
    if (parsed.pathname.startsWith(`${API_BASE}/assets/`)) return;
    const verb = method.toLowerCase();
    if (!(METHODS as readonly string[]).includes(verb)) return;
    const where = `${method.toUpperCase()} ${parsed.pathname}${parsed.search} -> ${res.status}`;
    this.counts.checked += 1;
    const isJson = /json/.test(mediaTypeOf(res.headers['content-type']) ?? '');
    if (mediaTypeOf(res.headers['content-type']) === 'application/vnd.api+json' && res.text) {
      try {
        expectValidJsonApi(JSON.parse(res.text));
      } catch (error) {
        throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
      }
    }

    const document = await this.documentFor(authorization);
    if (!document) {
      this.counts.keyless += 1;
      if (isJson) this.keylessErrorCheck(res, where);
      return;
    }
    const documentId = this.served.get(authorization ?? '')!.etag;
    const base = new URL(document.servers[0]!.url).pathname.replace(/\/+$/, '');
    const relative = parsed.pathname.slice(base.length) || '/';
    const template = findPath(document, relative);
    const operation = template ? (document.paths[template]![verb] as Operation | undefined) : undefined;

    if (!operation) {
      // Not described for this key: it must be refused, with the error document.
      this.counts.undescribedErrors += 1;
      if (res.status < 400)
        throw new Error(`${where}: succeeded, but the key's document does not describe ${method.toUpperCase()} ${template ?? relative}.`);
      if (isJson)
        this.validateBody(documentId, document, 'error', { $ref: '#/components/schemas/ErrorDocument' }, JSON.parse(res.text), where);
      return;
    }
    this.counts.described += 1;
    const declared = operation.responses[String(res.status)] ?? operation.responses.default;
    if (!declared) {
      throw new Error(
        `${where}: ${operation.operationId} does not list status ${res.status} (it lists ${Object.keys(operation.responses).join(', ')}).\n${res.text.slice(0, 1000)}`,
      );
    }
    const response = this.resolveResponse(document, declared);
    const content = response.content ?? {};
    if (Object.keys(content).length === 0) {
      if (res.text) throw new Error(`${where}: ${operation.operationId} ${res.status} is described without a body, but one was sent.`);
      return;
    }
    const type = mediaTypeOf(res.headers['content-type']);
    // A media type with parameters (an extension's `ext`) is described under its full name, when it is.
    const sent = res.headers['content-type'] as string | undefined;
    const media = (sent !== undefined ? content[sent] : undefined) ?? (type ? content[type] : undefined);
    if (!media) throw new Error(`${where}: sent as ${type}, described as ${Object.keys(content).join(' or ')}.`);
    if (media.schema && isJson) {
      const pointer = `${template} ${verb} ${res.status} ${type}`;
      this.validateBody(documentId, document, pointer, media.schema, JSON.parse(res.text), where);
    }
  }

  /** A supertest request whose response is checked before the test sees it. */
  instrument(test: Test): Test {
    const then = test.then.bind(test);
    const check = this.check.bind(this);
    const request = test as unknown as { method: string; url: string; get: (field: string) => string | undefined };
    Object.defineProperty(test, 'then', {
      configurable: true,
      value(onFulfilled?: (res: Response) => unknown, onRejected?: (error: unknown) => unknown) {
        return then(async (res: Response) => {
          await check(request.method, request.url, request.get('Authorization'), res);
          return res;
        }).then(onFulfilled, onRejected);
      },
    });
    return test;
  }

  /** `app.http()` with every request instrumented. */
  http(): ReturnType<TestApp['http']> {
    const agent = this.raw();
    const wrapped: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(agent)) {
      wrapped[name] = typeof value === 'function' ? (url: string) => this.instrument((value as (url: string) => Test)(url)) : value;
    }
    // `supertest(server)` returns a plain object with one function per HTTP method, as `wrapped` is;
    // @types/supertest declares it as its TestAgent class, so the object is given that declared type.
    return wrapped as unknown as ReturnType<TestApp['http']>;
  }
}

const checkers = new WeakMap<object, ResponseChecker>();

/**
 * The app, with `http()` checking every /api/v2 response against the calling key's document.
 *
 * The server listens on one port for the whole suite (supertest otherwise opens a new one per request):
 * the document's `servers` holds the base URL, so a stable port keeps one document per key, which the
 * checker revalidates with its ETag (304) and whose compiled schemas it keeps.
 */
export const checkResponses = async (app: TestApp): Promise<TestApp> => {
  const server = app.strapi.server.httpServer;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const checker = new ResponseChecker(app.http);
  const checked: TestApp = { ...app, http: () => checker.http() };
  checkers.set(checked, checker);
  return checked;
};

/** The checker behind a checked app (for its counts). */
export const responseCheckerOf = (app: TestApp): ResponseChecker | undefined => checkers.get(app);
