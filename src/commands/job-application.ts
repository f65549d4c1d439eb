/**
 * `job-application`: an application to an open job, with an optional CV (PDF or DOCX, at most 10 MiB)
 * sent as multipart/form-data. The CV is stored through the upload plugin and linked to the
 * application; editors find the application, its CV and its job in the admin.
 */
import type { Core } from '@strapi/strapi';
import type { CommandDefinition, CommandEnvironment, CommandViolation } from '../plugins/public-api/server/src/public';

const JOB = 'api::job.job';
const APPLICATION = 'api::job-application.job-application';

export const MAX_CV_BYTES = 10 * 1024 * 1024;

/** A job's slug or id as sent: trimmed, 1 to 255 characters. */
const MAX_JOB_IDENTIFIER_LENGTH = 255;

type Job = { id: number; documentId: string; closesOn: string | null };

/** Today as a calendar date in UTC: the day a closing date is compared with. */
export const todayUtc = (now: Date = new Date()): string => now.toISOString().slice(0, 10);

/** A job takes applications up to and including its closing day; without one it stays open. */
export const isOpen = (job: Pick<Job, 'closesOn'>, today: string): boolean => !job.closesOn || job.closesOn >= today;

/** The published job a slug (tried first) or id names, or null. Archived jobs are unpublished, so never found. */
const findPublishedJob = async (strapi: Core.Strapi, identifier: string): Promise<Job | null> => {
  const jobs = strapi.documents(JOB);
  for (const filters of [{ slug: identifier }, { documentId: identifier }]) {
    const job = (await jobs.findFirst({ filters, status: 'published', fields: ['closesOn'] } as never)) as Job | null;
    if (job) return job;
  }
  return null;
};

const jobProblem = async (strapi: Core.Strapi, identifier: string): Promise<{ job: Job | null; violation: CommandViolation | null }> => {
  const job = await findPublishedJob(strapi, identifier);
  if (!job) return { job, violation: { path: ['job'], message: 'No published job has this slug or id.', reason: 'job_not_found' } };
  if (!isOpen(job, todayUtc())) {
    return { job, violation: { path: ['job'], message: `This job stopped taking applications on ${job.closesOn}.`, reason: 'job_closed' } };
  }
  return { job, violation: null };
};

/** The job identifier the schema would accept, or null: the check runs on the attributes as sent, valid or not. */
const jobIdentifierOf = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length >= 1 && trimmed.length <= MAX_JOB_IDENTIFIER_LENGTH ? trimmed : null;
};

/** The CV's display name: whose it is (never a path). */
const cvName = (applicant: string): string => `CV ${applicant}`.slice(0, 200).replace(/[\\/]/g, '-');

const input = ({ z }: CommandEnvironment) =>
  z.strictObject({
    job: z
      .string()
      .trim()
      .min(1)
      .max(MAX_JOB_IDENTIFIER_LENGTH)
      .describe('The job applied to: its slug or id. It must be published and not past its closing date.'),
    name: z.string().trim().min(1).max(200).describe("The applicant's name."),
    email: z.string().trim().max(254).check(z.email()).describe("The applicant's email address."),
    phone: z
      .string()
      .trim()
      .min(3)
      .max(40)
      .regex(/^\+?[0-9 ()./-]+$/, 'A phone number has digits, spaces and + ( ) . / - only.')
      .optional()
      .describe("The applicant's phone number."),
    coverLetter: z.string().max(10000).optional().describe('The cover letter, as plain text.'),
    consent: z.literal(true, { error: 'Consent to the processing of the application is required.' }).describe('Must be true.'),
  });

export const jobApplication: CommandDefinition<ReturnType<typeof input>> = {
  name: 'job-application',
  description:
    'Apply to an open job: name, email, optional phone and cover letter, and consent to the processing of the application. ' +
    'A CV (PDF or DOCX, at most 10 MiB) may be sent with it as multipart/form-data: the document in a `data` part, the file in a `cv` part.',
  input,
  files: {
    cv: { description: 'The CV: a PDF or DOCX document, recognized by its content.', kinds: ['pdf', 'docx'], maxBytes: MAX_CV_BYTES },
  },
  async check(attributes, { strapi }) {
    const identifier = jobIdentifierOf(attributes.job);
    if (identifier === null) return [];
    const { violation } = await jobProblem(strapi, identifier);
    return violation ? [violation] : [];
  },
  async run(application, { strapi, files, store, violations }) {
    const { job, violation } = await jobProblem(strapi, application.job);
    if (violation || !job) throw violations(violation ? [violation] : []);
    // Its bytes stay exactly when this transaction commits, a crash included (the plugin's uploads/store.ts).
    const cv = files.cv ? await store(files.cv, cvName(application.name)) : null;
    await strapi.documents(APPLICATION).create({
      data: {
        name: application.name,
        email: application.email,
        phone: application.phone ?? null,
        coverLetter: application.coverLetter ?? null,
        consent: application.consent,
        job: job.documentId,
        ...(cv ? { cv: cv.id } : {}),
      },
    } as never);
    return { status: 'accepted' };
  },
};
