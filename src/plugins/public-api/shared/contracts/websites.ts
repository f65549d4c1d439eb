/**
 * Admin routes for websites (`/public-api/websites`) and what they publish.
 */
export type PublicationMode = 'collection' | 'singleton';

export type Publication = {
  /** The collection slug in `/cms/{website}/{collection}`. */
  collection: string;
  /** Strapi content type uid (`api::page.page`). */
  contentType: string;
  mode: PublicationMode;
  /** Display name of the resource; defaults to the humanized collection slug. */
  name?: string;
};

export type AdminWebsite = {
  id: number;
  documentId: string;
  name: string;
  slug: string;
  publications: Publication[];
  createdAt: string;
  updatedAt: string;
};

export type WebsiteInput = {
  name: string;
  /** Generated from the name when left out. */
  slug?: string;
  publications: Publication[];
};

export declare namespace ListWebsites {
  interface Response {
    data: AdminWebsite[];
  }
}

export declare namespace GetWebsite {
  interface Params {
    id: string;
  }
  interface Response {
    data: AdminWebsite;
  }
}

export declare namespace CreateWebsite {
  interface Request {
    body: WebsiteInput;
  }
  interface Response {
    data: AdminWebsite;
  }
}

export declare namespace UpdateWebsite {
  interface Params {
    id: string;
  }
  interface Request {
    body: Partial<WebsiteInput>;
  }
  interface Response {
    data: AdminWebsite;
  }
}

export declare namespace DeleteWebsite {
  interface Params {
    id: string;
  }
  interface Response {
    data: AdminWebsite;
  }
}
