/**
 * Every response document validates against the JSON:API project's own schema (shared/spec), extended
 * for exactly the two members the contract adds beyond it (its preamble and section 2) and nothing more:
 *
 * - `links.sync` (section 16): a link, on the last page of a sync run and on a delta;
 * - `atomic:results` (section 17, JSON:API Atomic Operations): the top-level member of a 200 to
 *   `POST /operations`, an array of result objects (`data`, `meta`), never beside `data` or `errors`.
 *
 * Any other member the schema does not list (`links.foo`, a top-level `x`, `jsonapi.ext`) fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

// A copy of shared/spec/jsonapi-1.0.schema.json (CC0), kept in the repository so tests run anywhere.
const schemaPath = path.resolve(__dirname, '..', 'fixtures', 'jsonapi-1.0.schema.json');

type Schema = Record<string, any>;

/** The JSON:API schema with `links.sync` and `atomic:results` allowed, and nothing else added. */
export const extendedJsonApiSchema = (base: Schema): Schema => {
  const schema = structuredClone(base) as Schema;
  const definitions = schema.definitions as Schema;
  definitions.topLevelLinks.properties.sync = {
    description: 'The sync feed: where the next delta starts (contract section 16).',
    $ref: '#/definitions/link',
  };
  definitions.atomicResult = {
    description: 'One result of an atomic operation: the record, or nothing (JSON:API Atomic Operations).',
    type: 'object',
    properties: { data: { $ref: '#/definitions/data' }, meta: { $ref: '#/definitions/meta' } },
    additionalProperties: false,
  };
  schema.properties['atomic:results'] = { type: 'array', items: { $ref: '#/definitions/atomicResult' } };
  definitions.requiredTopLevelMembers.anyOf.push({ type: 'object', required: ['atomic:results'] });
  // The results of operations stand alone: no primary data, no errors, nothing included beside them.
  schema.allOf.push({
    dependencies: { 'atomic:results': { not: { anyOf: [{ required: ['data'] }, { required: ['errors'] }, { required: ['included'] }] } } },
  });
  return schema;
};

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(extendedJsonApiSchema(JSON.parse(fs.readFileSync(schemaPath, 'utf8'))));

export const expectValidJsonApi = (body: unknown) => {
  const valid = validate(body);
  if (!valid) throw new Error(`Not a valid JSON:API document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2)}`);
};
