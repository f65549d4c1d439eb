/**
 * The demo content as data: what to create, before anything is written. Building the plan is pure
 * and deterministic; writing it is the only part that touches Strapi.
 */
export const LOCALES = ['en', 'de'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

export const UID = {
  building: 'api::building.building',
  event: 'api::event.event',
  festival: 'api::festival.festival',
  homepage: 'api::homepage.homepage',
  job: 'api::job.job',
  page: 'api::page.page',
  product: 'api::product.product',
  setting: 'api::setting.setting',
  website: 'plugin::public-api.website',
} as const;
export type SeededContentType = (typeof UID)[keyof typeof UID];
/**
 * The seeded content types with draft and publish (their schemas' `draftAndPublish`): the only ones a plan
 * publishes (test/unit/seed-plan.test.ts holds the plans and the schemas to it). Websites are live when saved.
 */
export type PublishableContentType = Exclude<SeededContentType, typeof UID.website>;

/** Another seeded document, by its plan key; written as its documentId. */
export type DocumentRef = { kind: 'document-ref'; contentType: SeededContentType; key: string };
/** A seeded file, by its plan key; written as its upload id. */
export type FileRef = { kind: 'file-ref'; key: string };

export const documentRef = (contentType: SeededContentType, key: string): DocumentRef => ({ kind: 'document-ref', contentType, key });
export const fileRef = (key: string): FileRef => ({ kind: 'file-ref', key });

/** Attribute values; references may stand for a whole value or for each item of a list. */
export type SeedData = Record<string, unknown>;

export type PlannedVersion = { locale: Locale | null; data: SeedData };

export type DocumentIdentity = {
  field: string;
  value: string;
  /** For a value unique within one website only: the website (by slug) whose document it names. */
  website?: string;
  /** The value an earlier plan gave the document: a rerun finds it by that too, and renames it. */
  formerly?: string;
};

export type PlannedDocument = {
  contentType: SeededContentType;
  /** Unique per content type in the plan; what references name. */
  key: string;
  /** How a rerun finds the document again (slug, or another unique value); null for a single type. */
  identity: DocumentIdentity | null;
  /** The first version creates the document; the others add its localizations. */
  versions: PlannedVersion[];
  /** Published (every version) or left a draft that was never published. */
  publish: boolean;
  /** Edits saved after publishing: the published version keeps the original values. Scalars only. */
  draftChanges: PlannedVersion[];
};

export type ImagePattern = 'gradient' | 'sunrise' | 'circles' | 'stripes' | 'mosaic';

export type PlannedImage = {
  kind: 'image';
  key: string;
  fileName: string;
  format: 'jpeg' | 'png';
  width: number;
  height: number;
  pattern: ImagePattern;
  /** Hex colours, darkest first. */
  colors: string[];
  /** Seed for the pattern's own layout. */
  layoutSeed: number;
  alternativeText: string;
  caption: string;
};

export type PlannedPdf = { kind: 'pdf'; key: string; fileName: string; title: string; lines: string[]; caption: string };

export type PlannedFile = PlannedImage | PlannedPdf;

export type DemoPlan = {
  files: PlannedFile[];
  /** In write order: every document comes after the documents it refers to. */
  documents: PlannedDocument[];
};
