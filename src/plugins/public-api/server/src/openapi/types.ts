/**
 * The parts of OpenAPI 3.1 the document is built from, as plain JSON-ready types.
 */
/** A JSON value while the document is built: members left undefined are dropped on serialization. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue | undefined };

/** A JSON Schema 2020-12 object (OpenAPI 3.1's dialect); kept open, every value JSON. */
export type Schema = { [keyword: string]: JsonValue | undefined };

export type Ref = { $ref: string };

/** How one part of a multipart body is sent (OpenAPI's Encoding Object, the member the document uses). */
export type EncodingObject = { contentType: string };

export type MediaTypeObject = { schema: Schema | Ref; encoding?: Record<string, EncodingObject> };

export type HeaderObject = { description: string; required?: boolean; schema: Schema };

export type ResponseObject = {
  description: string;
  headers?: Record<string, HeaderObject | Ref>;
  content?: Record<string, MediaTypeObject>;
};

export type ParameterObject = {
  name: string;
  in: 'query' | 'path' | 'header';
  description: string;
  required?: boolean;
  style?: 'form' | 'simple' | 'deepObject';
  explode?: boolean;
  schema: Schema;
};

export type RequestBodyObject = { description: string; required: boolean; content: Record<string, MediaTypeObject> };

export type OperationObject = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: (ParameterObject | Ref)[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | Ref>;
  security?: Record<string, string[]>[];
};

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

export type PathItemObject = Partial<Record<HttpMethod, OperationObject>> & {
  parameters?: (ParameterObject | Ref)[];
  'x-service'?: { identifier: string[] };
};

export type TagObject = { name: string; description: string };

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  security: Record<string, string[]>[];
  tags: TagObject[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, Schema>;
    parameters: Record<string, ParameterObject>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; bearerFormat: string; description: string }>;
  };
};
