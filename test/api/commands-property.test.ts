/**
 * Property test of commands (contract section 10): random attribute maps, valid and not, against both
 * commands' zod schemas. No payload ever produces a 500; a payload the schema (and, for applications,
 * the job's state) accepts is answered 201 and writes exactly one record; any other is 422 and writes
 * nothing.
 */
import type { Core } from '@strapi/strapi';
import fc from 'fast-check';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { ensureLocale, publish } from '../helpers/fixtures';
import { listenOnce, tableSnapshot, writer } from '../helpers/writes';
import { COMMANDS } from '../../src/commands';
import { commandEnvironment } from '../../src/plugins/public-api/server/src/commands';

const findCommand = (name: string) => COMMANDS.find((command) => command.name === name);

const JOB = 'api::job.job';
const APPLICATION = 'api::job-application.job-application';
const SUBSCRIPTION = 'api::newsletter-subscription.newsletter-subscription';
const UIDS = [APPLICATION, SUBSCRIPTION, 'plugin::upload.file'];
const OPEN_JOBS = new Set(['open']);

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let auth: string;
let locales: string[];

beforeAll(async () => {
  app = await bootApp();
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  await ensureLocale(s, 'de', 'German');
  locales = ((await s.plugin('i18n').service('locales').find()) as { code: string }[]).map((row) => row.code);
  await publish(s, JOB, { title: 'Open', slug: 'open', department: 'engineering', employmentType: 'full-time' });
  await publish(s, JOB, {
    title: 'Closed',
    slug: 'closed',
    department: 'engineering',
    employmentType: 'full-time',
    closesOn: '2000-01-01',
  });
  auth = (await createKey(s, { commands: '*' })).auth;
});
afterAll(async () => {
  await app?.close();
});

const either = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: invalid });

const junk = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 5 }),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);

const email = fc.oneof(
  fc.emailAddress(),
  fc.emailAddress().map((address) => `  ${address.toUpperCase()} `),
);

const attributes = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .record(Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, fc.option(value, { nil: undefined, freq: 5 })])), {
      requiredKeys: [],
    })
    .chain((record) =>
      fc
        .option(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), junk, { maxKeys: 2 }), { freq: 6 })
        .map((extra) => ({ ...(extra ?? {}), ...record })),
    )
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));

const APPLICATION_FIELDS = {
  job: either(fc.constantFrom('open', 'closed', 'none'), junk),
  name: either(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('', '   ', 'x'.repeat(201), 7)),
  email: either(email, fc.constantFrom('nope', '@x', 'a@b', 3)),
  phone: either(fc.stringMatching(/^\+?[0-9 ]{3,20}$/), fc.constantFrom('call me', '1', 12345)),
  coverLetter: either(fc.string({ maxLength: 200 }), fc.constantFrom('x'.repeat(10001), false)),
  consent: either(fc.constant(true), fc.constantFrom(false, 'true', 1, null)),
};

const SIGNUP_FIELDS = {
  email: either(email, fc.constantFrom('nope', '', ' @ ', [])),
  name: either(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('', 'x'.repeat(201))),
  locale: either(fc.constantFrom('en', 'de'), fc.constantFrom('fr', 'EN', '', 1)),
  topics: either(
    fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 4 }),
    fc.constantFrom([''], ['x'.repeat(51)], 'jobs', [1]),
  ),
  consent: either(fc.constant(true), fc.constantFrom(false, 'yes', null)),
};

const count = async (uid: string) => Number(await s.db.query(uid as never).count({}));

test('job-application: never a 500, one record exactly when the input is valid', async () => {
  const schema = findCommand('job-application')!.input(commandEnvironment(locales));
  await fc.assert(
    fc.asyncProperty(attributes(APPLICATION_FIELDS), async (input) => {
      const before = await tableSnapshot(s, UIDS);
      const applications = await count(APPLICATION);
      const res = await api.post('/api/v2/commands/job-application', auth, { data: { type: 'job-application', attributes: input } });
      const parsed = schema.safeParse(input);
      const valid = parsed.success && OPEN_JOBS.has((parsed.data as { job: string }).job);
      expect(res.status).toBe(valid ? 201 : 422);
      if (valid) expect(await count(APPLICATION)).toBe(applications + 1);
      else {
        expect(res.body.errors.every((error: any) => error.source?.pointer?.startsWith('/data/attributes'))).toBe(true);
        expect(await tableSnapshot(s, UIDS)).toEqual(before);
      }
    }),
    { numRuns: 80 },
  );
});

test('newsletter-signup: never a 500, a record only for a valid input with a new address', async () => {
  const schema = findCommand('newsletter-signup')!.input(commandEnvironment(locales));
  await fc.assert(
    fc.asyncProperty(attributes(SIGNUP_FIELDS), async (input) => {
      const before = await tableSnapshot(s, UIDS);
      const res = await api.post('/api/v2/commands/newsletter-signup', auth, { data: { type: 'newsletter-signup', attributes: input } });
      const parsed = schema.safeParse(input);
      expect(res.status).toBe(parsed.success ? 201 : 422);
      if (!parsed.success) {
        expect(await tableSnapshot(s, UIDS)).toEqual(before);
        return;
      }
      const address = (parsed.data as { email: string }).email;
      const known = (before[SUBSCRIPTION] as { email: string }[]).some((row) => row.email === address);
      const after = (await s.db.query(SUBSCRIPTION).findMany({ where: { email: address } })) as unknown[];
      expect(after).toHaveLength(1);
      expect(await count(SUBSCRIPTION)).toBe((before[SUBSCRIPTION] as unknown[]).length + (known ? 0 : 1));
    }),
    { numRuns: 80 },
  );
});
