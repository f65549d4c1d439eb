/**
 * Every response document validates against the JSON:API project's own schema (shared/spec).
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

// A copy of shared/spec/jsonapi-1.0.schema.json (CC0), kept in the repository so tests run anywhere.
const schemaPath = path.resolve(__dirname, '..', 'fixtures', 'jsonapi-1.0.schema.json');
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')));

export const expectValidJsonApi = (body: unknown) => {
  const valid = validate(body);
  if (!valid) throw new Error(`Not a valid JSON:API document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2)}`);
};
