/**
 * The command endpoints (contract sections 9 and 10): `GET /commands/schema` lists the key's granted
 * commands with their input schemas; `POST /commands/{command}` runs one.
 *
 * A run is a write (handlers/shared/write-handler.ts): *prepare* finds the command (404 unknown, then 403 not
 * granted: decided by name and grant alone, before the body is looked at, so a key that may not run a
 * command learns nothing of its input, media types or limits) and reads the body (415, 413, 400);
 * *execute* checks `data.type` (409) and the input (422, every problem at once) and runs the command in
 * the request's transaction. Idempotency-Key applies as for writes.
 *
 * Bodies: JSON (`application/json` or JSON:API) for every command; multipart/form-data for commands that
 * take files, with the JSON document in a `data` part (a field, or a file part) and each file in the part
 * named after it (`cv`). File kinds are sniffed from the bytes; an empty file part counts as not sent.
 * A multipart body is paid for from the key's rate limit by its size (429, http/request-cost.ts) and
 * admitted under the bound on uploads in flight (503 over it) before it is read, and
 * received into the request's private workspace (services/uploads.ts), which goes once the transaction
 * has ended.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { COMMANDS_TAG } from '../http/cache-tags';
import { commandEnvironment, inputJsonSchema, type CommandDefinition, type CommandEnvironment } from '../commands';
import { MAX_INPUT_PROBLEMS, inputProblems, orderedProblems, violationProblems } from '../commands/input';
import { CommandViolations, type CommandContext, type ReceivedFile } from '../commands/types';
import { MAX_BODY_BYTES, parseJsonBytes, readJsonBody } from '../http/body';
import { uploadUnits } from '../http/request-cost';
import { JSONAPI } from '../http/jsonapi';
import { apiError, apiErrors, type ErrorObject, type ReasonOf } from '../http/errors';
import type { ApiRequest, Handler } from '../http/request';
import { isMultipart, multipartBodyLimit, readMultipartBody, type MultipartBody } from '../http/multipart';
import { FILE_KINDS, KIND_HEAD_BYTES, kindOfHead, sniffFileKind, type FileKind } from '../uploads/file-kind';
import { readHead } from '../assets/bytes';
import type { KeyGrants } from '../grants/types';
import { writeHandler, type Execution } from './shared/write-handler';
import { parameterError, echo } from '../query/problems';
import { assertDocumentTarget, parseResourceDocument } from '../write/resource-object';
import { unstorableProblems } from '../write/storable-values';
import { apiErrorOfWrite } from '../write/violations';
import { getService } from '../utils/get-service';
import type { UploadSession, Workspace } from '../services/uploads';
import { declaredLength, reservedBytes } from '../uploads/gate';
import { storeReceivedFile } from '../uploads/store';
import { lockUntilCommit } from '../database/connection';

const environment = async (): Promise<CommandEnvironment> => commandEnvironment((await getService('locales').get()).codes);

/** The registered commands the key is granted; a grant naming a command no longer registered shows nothing, as a removed resource's. */
export const grantedCommands = (grants: KeyGrants): readonly CommandDefinition[] =>
  getService('commands')
    .all()
    .filter((command) => grants.commands.includes(command.name));

/** Commands take no query parameters: anything there is a mistake worth saying. */
const assertNoQuery = (request: ApiRequest) => {
  for (const name of request.query.keys()) {
    throw parameterError(name, `The query parameter ${echo(name)} does not apply here.`, 'unknown_parameter');
  }
};

// ---------------------------------------------------------------------------------------------------------
// GET /commands/schema
// ---------------------------------------------------------------------------------------------------------

const fileDescriptions = (command: CommandDefinition) =>
  Object.fromEntries(
    Object.entries(command.files ?? {}).map(([name, rule]) => [
      name,
      { description: rule.description, mediaTypes: rule.kinds.map((kind) => FILE_KINDS[kind].mimeType), maxBytes: rule.maxBytes },
    ]),
  );

export const commandSchema: Handler = async (request) => {
  assertNoQuery(request);
  const env = await environment();
  return {
    kind: 'document',
    status: 200,
    tags: [COMMANDS_TAG],
    document: {
      jsonapi: JSONAPI,
      links: { self: request.selfUrl },
      data: grantedCommands(request.key.grants).map((command) => ({
        type: 'commands',
        id: command.name,
        attributes: { name: command.name, description: command.description, inputSchema: inputJsonSchema(command, env) },
        // Files travel beside the document (multipart/form-data), so the input schema cannot say them.
        ...(command.files ? { meta: { multipart: { documentPart: 'data', files: fileDescriptions(command) } } } : {}),
      })),
    },
  };
};

// ---------------------------------------------------------------------------------------------------------
// POST /commands/{command}
// ---------------------------------------------------------------------------------------------------------

/** A file as received, before its kind is judged. */
type FilePart = { path: string; size: number; kind: FileKind | null };

type CommandBody = {
  document: unknown;
  files: Record<string, FilePart>;
  /** What Idempotency-Key fingerprints: the document, and each file by its digest. */
  fingerprint: unknown;
};

const malformed = (detail: string, reason: ReasonOf<400>) => apiError(400, detail, { reason });

const documentOfParts = async (body: MultipartBody): Promise<unknown> => {
  const fields = body.fields.data ?? [];
  const files = body.files.data ?? [];
  if (fields.length + files.length !== 1) {
    throw malformed(
      'A multipart command request carries its JSON:API document in exactly one part named `data`.',
      'multipart_document_missing',
    );
  }
  if (fields.length === 1) return parseJsonBytes(Buffer.from(fields[0]!, 'utf8'));
  const file = files[0]!;
  if (file.size > MAX_BODY_BYTES)
    throw apiError(413, `The \`data\` part may be at most ${MAX_BODY_BYTES} bytes (1 MiB).`, { reason: 'body_too_large' });
  return parseJsonBytes(await fs.readFile(file.path));
};

/**
 * A received file's kind, judged by its bytes: a PDF from its first bytes, a DOCX from its ZIP directory
 * (the file is read whole only then), anything else from its first bytes alone.
 */
const kindOfFile = async (path: string): Promise<FileKind | null> => {
  const head = await readHead(path, KIND_HEAD_BYTES);
  const byHead = head && kindOfHead(head);
  if (byHead === 'pdf') return 'pdf';
  return byHead === 'zip' ? sniffFileKind(await fs.readFile(path)) : null;
};

/**
 * The meter of a chunked upload (http/body.ts `BodyMeter`): a chunk that starts a MiB past the first is
 * paid for before it is parsed or written, one charge per started MiB; a chunk within a MiB already paid
 * for passes at once. When the key cannot pay, the charge's 429 ends the body there.
 */
const meterUpload = (request: ApiRequest) => {
  let paid = 0;
  return (bytes: number): Promise<void> | undefined => {
    if (uploadUnits(bytes) <= uploadUnits(paid)) return undefined;
    const before = paid;
    // Counted as paid at once: chunks come one at a time (the body waits for this charge).
    paid = bytes;
    return request.charge({ uploadedBytes: bytes }, { uploadedBytes: before });
  };
};

const readMultipartCommand = async (
  request: ApiRequest,
  command: CommandDefinition,
  uploads: UploadSession,
): Promise<CommandBody & { workspace: Workspace }> => {
  const rules = command.files ?? {};
  const maxFileBytes = Math.max(MAX_BODY_BYTES, ...Object.values(rules).map((rule) => rule.maxBytes));
  const limit = multipartBodyLimit(maxFileBytes);
  const reserved = reservedBytes(request.headers['content-length'], limit);
  // Declared too large: 413 from the body reader, busy or not.
  if (reserved === null) await request.readBody(limit, 'multipart');
  // Room under the bound on uploads in flight (503 without), before a byte of the body is read.
  const workspace = await uploads.open(reserved ?? limit);
  // Paid for once the room is held (a body shed with 503 has not paid): a declared length before a byte
  // of the body is read (429 when the key cannot), a chunked body as it arrives, each started MiB past the
  // first before a byte of it is parsed or written (http/request-cost.ts).
  const declared = declaredLength(request.headers['content-length']);
  if (declared !== null) await request.charge({ uploadedBytes: declared });
  const body = await readMultipartBody(request, {
    directory: workspace.directory,
    maxFileBytes,
    meter: declared === null ? meterUpload(request) : undefined,
  });
  for (const name of [...Object.keys(body.fields), ...Object.keys(body.files)]) {
    if (name !== 'data' && !(name in rules)) {
      throw malformed(
        `This command takes no part named ${echo(name)}; send \`data\`${Object.keys(rules)
          .map((file) => ` and \`${file}\``)
          .join('')}.`,
        'multipart_part_unknown',
      );
    }
  }
  const document = await documentOfParts(body);
  const files: Record<string, FilePart> = {};
  const digests: Record<string, { sha256: string; size: number }> = {};
  for (const [name, rule] of Object.entries(rules)) {
    if (body.fields[name]?.length) throw malformed(`The part ${echo(name)} must be a file.`, 'multipart_part_not_file');
    const parts = (body.files[name] ?? []).filter((part) => part.size > 0);
    if (parts.length > 1) throw malformed(`Send at most one file in the part ${echo(name)}.`, 'multipart_part_repeated');
    const part = parts[0];
    if (!part) continue;
    if (part.size > rule.maxBytes)
      throw apiError(413, `The file ${echo(name)} may be at most ${rule.maxBytes} bytes.`, { reason: 'file_too_large' });
    files[name] = { path: part.path, size: part.size, kind: await kindOfFile(part.path) };
    digests[name] = { sha256: part.sha256, size: part.size };
  }
  return { document, files, fingerprint: { document, files: digests }, workspace };
};

const readCommandBody = async (
  request: ApiRequest,
  command: CommandDefinition,
  uploads: UploadSession,
): Promise<CommandBody & { workspace?: Workspace }> => {
  if (command.files && isMultipart(request)) return readMultipartCommand(request, command, uploads);
  // Anything but JSON is 415 here, multipart included for commands that take no files.
  const document = await readJsonBody(request);
  return { document, files: {}, fingerprint: document };
};

/** A command without files stores none; one that does has its workspace. */
const noFiles = async (): Promise<never> => {
  throw new Error('This request carried no files to store.');
};

/** Files of an accepted kind, or a problem pointing at the file's part as an attribute. */
const judgeFiles = (command: CommandDefinition, files: Record<string, FilePart>) => {
  const accepted: Record<string, ReceivedFile> = {};
  const problems: ErrorObject[] = [];
  for (const [name, file] of Object.entries(files)) {
    const rule = command.files![name]!;
    if (file.kind && rule.kinds.includes(file.kind)) {
      accepted[name] = { path: file.path, size: file.size, kind: file.kind };
    } else {
      const kinds = rule.kinds.map((kind) => FILE_KINDS[kind].extension.toUpperCase()).join(' or ');
      problems.push(
        ...violationProblems([
          { path: [name], message: `The file is not a ${kinds} document (judged by its content).`, reason: 'file_type_not_accepted' },
        ]),
      );
    }
  }
  return { accepted, problems };
};

const resultDocument = (command: CommandDefinition, result: { status: string; attributes?: Record<string, unknown> }) => ({
  jsonapi: JSONAPI,
  // The id names this execution, nothing stored: it discloses no record, and two runs never share one.
  data: { type: 'command-results', id: randomUUID(), attributes: { command: command.name, status: result.status, ...result.attributes } },
});

const prepareCommand = async (request: ApiRequest, uploads: UploadSession): Promise<Execution> => {
  const command = getService('commands').find(request.params.command!);
  if (!command) throw apiError(404, 'No command exists with this name.', { reason: 'command_not_found' });
  if (!request.key.grants.commands.includes(command.name)) {
    throw apiError(403, 'This key may not run this command.', { reason: 'command_not_granted' });
  }
  assertNoQuery(request);
  const body = await readCommandBody(request, command, uploads);
  const { workspace } = body;
  const object = parseResourceDocument(body.document);
  const env = await environment();
  const visible = new Set(Object.keys(object.attributes));
  return {
    body: body.fingerprint,
    explain: (error) =>
      error instanceof CommandViolations
        ? apiErrors(422, orderedProblems(violationProblems(error.violations)))
        : // A command's attributes are the caller's own: it may see what it sent.
          apiErrorOfWrite(error, { visible, readable: visible }),
    execute: async () => {
      assertDocumentTarget(object, { type: command.name, id: null });
      const files = judgeFiles(command, body.files);
      const context: CommandContext = {
        strapi,
        files: files.accepted,
        store: workspace ? (file, name) => storeReceivedFile(strapi, workspace, file, name) : noFiles,
        // Named per command, so that two commands' locks never meet by accident.
        lock: (name) => lockUntilCommit(strapi, `public-api:command:${command.name}:${name}`),
        violations: (list) => new CommandViolations(list),
      };
      const parsed = command.input(env).safeParse(object.attributes);
      const schemaProblems = parsed.success ? [] : inputProblems(parsed.error.issues, object.attributes);
      // Text no database stores reaches no query, not even the command's own check (a job lookup).
      const unstorable = unstorableProblems(object.attributes, [], MAX_INPUT_PROBLEMS);
      if (unstorable.length) throw apiErrors(422, orderedProblems([...unstorable, ...schemaProblems]));
      const checked = command.check ? await command.check(object.attributes, context) : [];
      const problems = [...schemaProblems, ...violationProblems(checked), ...files.problems];
      if (problems.length || !parsed.success) throw apiErrors(422, orderedProblems(problems));
      return { kind: 'document', status: 201, document: resultDocument(command, await command.run(parsed.data, context)) };
    },
  };
};

export const runCommand: Handler = async (request) => {
  const uploads = getService('uploads').session();
  try {
    return await writeHandler((prepared) => prepareCommand(prepared, uploads), { idempotent: true })(request);
  } finally {
    // After the transaction ended (committed or rolled back): received parts and notes go, room is given back.
    await uploads.close();
  }
};
